/**
 * Schedules of `bindings.cron`: `@every <duration>` (e.g. `@every 15s`), the shorthands `@yearly` (`@annually`),
 * `@monthly`, `@weekly`, `@daily` (`@midnight`), `@hourly`, and cron expressions of 6 fields (seconds first, as Dapr's
 * cron binding takes) or 5 (minute first). Fields take `*`, numbers, ranges `a-b`, lists `a,b` and steps `*\/n`,
 * `a-b/n`; day of week 0–7 (0 and 7 are Sunday). When both day of month and day of week are restricted, either
 * matching is enough (as in cron). Times are the machine's local time. Shared by `bindings.cron` and jobs, which
 * each say in their own words what was wrong (`InvalidScheduleError` carries only the problem).
 */
import { parseDuration } from '../config/parse-values.js';

export interface Schedule {
  /** The first firing time strictly after `after` (ms since the epoch). */
  next(after: number): number;
}

const SHORTHANDS: Record<string, string> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@midnight': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
};

const FIELDS = [
  { name: 'second', min: 0, max: 59 },
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 7 },
] as const;

/** The schedule cannot be read, or never fires; the message says why, naming the schedule. */
export class InvalidScheduleError extends Error {}

function invalid(schedule: string, problem: string): never {
  throw new InvalidScheduleError(`schedule '${schedule}': ${problem}`);
}

function parseField(text: string, field: (typeof FIELDS)[number], schedule: string): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) invalid(schedule, `${field.name} '${part}' is not a number, range, list or step`);
    const from = m[1] === '*' ? field.min : Number(m[2]);
    const to = m[1] === '*' ? field.max : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? field.max : from;
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (from < field.min || to > field.max || from > to || step < 1) invalid(schedule, `${field.name} '${part}' is outside ${field.min}-${field.max}`);
    for (let v = from; v <= to; v += step) out.add(field.name === 'day of week' && v === 7 ? 0 : v);
  }
  return out;
}

/**
 * Reads a schedule; `minEveryMs` is the shortest `@every` accepted. A cron expression that can never match (30 February)
 * is refused here, not at its first use.
 */
export function parseSchedule(schedule: string, minEveryMs = 1000): Schedule {
  const parsed = readSchedule(schedule, minEveryMs);
  parsed.next(Date.now());
  return parsed;
}

function readSchedule(schedule: string, minEveryMs: number): Schedule {
  const text = schedule.trim();
  if (text.startsWith('@every ')) {
    let every: number;
    try {
      every = parseDuration(text.slice('@every '.length));
    } catch {
      return invalid(schedule, '@every needs a duration such as 15s or 1m30s');
    }
    if (every < minEveryMs) invalid(schedule, `@every needs at least ${minEveryMs}ms`);
    return { next: (after) => after + every };
  }
  const expanded = SHORTHANDS[text] ?? text;
  let parts = expanded.split(/\s+/);
  if (parts.length === 5) parts = ['0', ...parts];
  if (parts.length !== 6) invalid(schedule, 'a cron expression has 5 or 6 fields (seconds first), or use @every <duration> / @hourly / @daily …');
  const [sec, min, hour, dom, mon, dow] = parts.map((p, i) => parseField(p, FIELDS[i]!, schedule)) as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  const domRestricted = parts[3] !== '*';
  const dowRestricted = parts[5] !== '*';
  const dayMatches = (d: Date) => {
    const byDom = dom.has(d.getDate());
    const byDow = dow.has(d.getDay());
    if (domRestricted && dowRestricted) return byDom || byDow;
    return byDom && byDow;
  };
  return {
    next(after: number): number {
      const d = new Date(Math.floor(after / 1000) * 1000 + 1000);
      const limit = after + 5 * 366 * 24 * 3600 * 1000;
      while (d.getTime() <= limit) {
        if (!mon.has(d.getMonth() + 1)) {
          d.setMonth(d.getMonth() + 1, 1);
          d.setHours(0, 0, 0, 0);
        } else if (!dayMatches(d)) {
          d.setDate(d.getDate() + 1);
          d.setHours(0, 0, 0, 0);
        } else if (!hour.has(d.getHours())) {
          d.setHours(d.getHours() + 1, 0, 0, 0);
        } else if (!min.has(d.getMinutes())) {
          d.setMinutes(d.getMinutes() + 1, 0, 0);
        } else if (!sec.has(d.getSeconds())) {
          d.setSeconds(d.getSeconds() + 1, 0);
        } else return d.getTime();
      }
      return invalid(schedule, 'it never fires');
    },
  };
}
