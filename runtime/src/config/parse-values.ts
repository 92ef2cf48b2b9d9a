/** Parsers for option values: sizes (`4Mi`), durations (`5s`, `250ms`) and ports. Each throws with a readable reason. */

const SIZE_UNITS: Record<string, number> = {
  '': 1, b: 1, k: 1e3, kb: 1e3, ki: 1024, kib: 1024, m: 1e6, mb: 1e6, mi: 1024 ** 2, mib: 1024 ** 2, g: 1e9, gb: 1e9, gi: 1024 ** 3, gib: 1024 ** 3,
};

export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = SIZE_UNITS[(m?.[2] ?? '').toLowerCase()];
  if (!m || unit === undefined) throw new Error(`'${text}' is not a size (examples: 1048576, 512Ki, 4Mi)`);
  return Math.floor(Number(m[1]) * unit);
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go-style durations (`1h30m`, `5s`, `250ms`); a bare number is milliseconds. Returns milliseconds. */
export function parseDuration(text: string): number {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    total += Number(m[1]) * (DURATION_UNITS[m[2]!] ?? 0);
    consumed = re.lastIndex;
  }
  if (t.length === 0 || consumed !== t.length) throw new Error(`'${text}' is not a duration (examples: 5s, 250ms, 1m30s)`);
  return total;
}

export function parsePort(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`'${text}' is not a port number (0-65535)`);
  return n;
}

export function parseBool(text: string): boolean {
  const t = text.trim().toLowerCase();
  if (['true', '1', 'yes', 'y', 'on'].includes(t)) return true;
  if (['false', '0', 'no', 'n', 'off', ''].includes(t)) return false;
  throw new Error(`'${text}' is not a boolean (true or false)`);
}

export function parsePositiveInt(text: string): number {
  if (!/^[1-9][0-9]{0,8}$/.test(text)) throw new Error(`'${text}' is not a positive whole number`);
  return Number(text);
}

/** A trace viewer's page for one trace: an http(s) address with `{traceId}` in it; '' means none. */
export function parseTraceViewerUrl(text: string): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  let url: URL;
  try {
    url = new URL(t.replaceAll('{traceId}', 'TRACEID'));
  } catch {
    throw new Error(`'${text}' is not an address (example: http://jaeger:16686/trace/{traceId})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`'${text}' is not an http or https address`);
  if (!t.includes('{traceId}')) throw new Error(`'${text}' has no {traceId} where the trace id goes (example: http://jaeger:16686/trace/{traceId})`);
  return t;
}
