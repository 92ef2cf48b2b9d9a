/**
 * The time formats the actor API accepts for reminders and timers, as Dapr clients send them:
 * Go durations (`1h2m3.5s`, `500ms`), ISO 8601 durations (`PT1H`, `P1DT2H`), ISO 8601 repetitions for periods
 * (`R5/PT10S`), and RFC 3339 times for due times and TTLs (`2026-01-01T00:00:00Z`).
 */
import { RuntimeError } from '../errors/runtime-error.js';
import type { EpochMs } from './types.js';

const GO_UNITS_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DAY_MS = 86_400_000;

function malformed(field: string, text: string, expected: string): RuntimeError {
  return new RuntimeError('ERR_MALFORMED_REQUEST', `invalid ${field} '${text}': expected ${expected}`);
}

/** A Go duration in ms, or undefined when `text` is not one. */
export function parseGoDuration(text: string): number | undefined {
  const t = text.trim();
  if (t === '0') return 0;
  // µ (micro sign) and μ (Greek mu) as escapes: svcd's bundle stays ASCII, which its launcher reads fastest.
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$/.exec(t);
  if (!m) return undefined;
  let total = 0;
  for (const part of t.replace(/^[+-]/, '').matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/g)) {
    total += Number(part[1]) * (GO_UNITS_MS[part[2]!] ?? 0);
  }
  return m[1] === '-' ? -total : total;
}

/**
 * An ISO 8601 duration in ms (years as 365 days, months as 30 days, weeks as 7 days), or undefined. Letters in
 * any case: `@dapr/dapr` lower-cases `Temporal.Duration` text (`P1D` arrives as `p1d`).
 */
export function parseIsoDuration(text: string): number | undefined {
  const m = /^P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(text.trim());
  if (!m || /^p$/i.test(text.trim()) || /t$/i.test(text.trim())) return undefined;
  const n = (i: number) => (m[i] === undefined ? 0 : Number(m[i]));
  return (n(1) * 365 + n(2) * 30 + n(3) * 7 + n(4)) * DAY_MS + n(5) * 3_600_000 + n(6) * 60_000 + n(7) * 1000;
}

function parseRfc3339(text: string): EpochMs | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text.trim())) return undefined;
  const t = Date.parse(text.trim());
  return Number.isNaN(t) ? undefined : t;
}

function durationMs(text: string): number | undefined {
  return parseGoDuration(text) ?? parseIsoDuration(text);
}

/** Due time: empty means now; a duration counts from now; an RFC 3339 time is absolute. */
export function parseDueTime(text: string | undefined, now: EpochMs): EpochMs {
  if (text === undefined || text.trim() === '') return now;
  const at = parseRfc3339(text);
  if (at !== undefined) return at;
  const ms = durationMs(text);
  if (ms === undefined || ms < 0) throw malformed('dueTime', text, 'a duration (5s, 1h30m, PT5S) or an RFC 3339 time');
  return now + ms;
}

/** Period: empty or zero means one-shot; `R<n>/<duration>` limits the number of fires. */
export function parsePeriod(text: string | undefined): { periodMs?: number; repetitions?: number } {
  if (text === undefined || text.trim() === '') return {};
  const rep = /^R(\d+)\/(.+)$/.exec(text.trim());
  const ms = durationMs(rep ? rep[2]! : text);
  if (ms === undefined || ms < 0) throw malformed('period', text, 'a duration (5s, PT5S) or R<n>/<duration>');
  if (rep) {
    const repetitions = Number(rep[1]);
    if (repetitions < 1) throw malformed('period', text, 'at least one repetition');
    if (ms === 0) return {};
    return { periodMs: ms, repetitions };
  }
  return ms === 0 ? {} : { periodMs: ms };
}

/** TTL: a duration from `from`, or an RFC 3339 time; absolute expiry in ms. */
export function parseTtl(text: string | undefined, from: EpochMs): EpochMs | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const at = parseRfc3339(text);
  if (at !== undefined) return at;
  const ms = durationMs(text);
  if (ms === undefined || ms <= 0) throw malformed('ttl', text, 'a positive duration (1h, PT1H) or an RFC 3339 time');
  return from + ms;
}

/** Go-style rendering for `GET …/reminders/<name>` when the client gave no text. */
export function formatGoDuration(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h}h${m}m${s}s`;
}
