/**
 * State API benchmark against a real svcd process: requests/s, p50/p99 latency and the sidecar's CPU per request
 * (from /proc: the figure that survives a noisy machine) of GET and save (POST) over HTTP, at 1 and 64 concurrent
 * connections, for each store target. Prints one table.
 * Run: `npm run build && node bench/dist/src/state.js` (Redis must be up: `bash scripts/ensure-services.sh`).
 * Any other sidecar that speaks the state API can be measured the same way, side by side:
 * `BENCH_SIDECAR_URL=http://127.0.0.1:3500 BENCH_SIDECAR_PID=<its pid> BENCH_SIDECAR_STORE=statestore node bench/dist/src/state.js`.
 * Other benchmarks add rows with `benchStateTarget` (e.g. a pluggable store) and print them with `printStateTable`.
 */
import autocannon, { type Options as LoadOptions, type Result as LoadResult } from 'autocannon';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { componentYaml, SvcdProcess, TEST_REDIS_HOST, type SvcdOptions } from '@svc/runtime/test-support';
import { cpuMs } from './workflow-loop.js';

export interface StateBenchTarget {
  /** Row label, e.g. `SQLite`. */
  readonly label: string;
  /** How to start svcd: must load a state store named `store`. */
  readonly svcd: SvcdOptions;
  /** Store name in the API path. @default 'store' */
  readonly store?: string;
}

export interface StateBenchOptions {
  /** Seconds per measurement. @default 5 */
  readonly durationSec?: number;
  /** @default [1, 64] */
  readonly connections?: readonly number[];
  /** Sent with every measured request (a caller's `traceparent`). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface StateBenchRow {
  readonly target: string;
  readonly operation: 'get' | 'save';
  readonly connections: number;
  readonly requestsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Non-2xx answers, errors and timeouts: anything but 0 makes the row suspect. */
  readonly failures: number;
  /** The sidecar's CPU time (user + system) per answered request, µs. */
  readonly cpuUsPerRequest: number;
}

/** Distinct keys written by the save run, so writes do not all contend on one row. */
const SAVE_KEYS = 1000;
const VALUE = JSON.stringify({ orderId: 'o-123456', customer: 'c-42', items: [{ sku: 'book', qty: 1, price: 12.5 }], note: 'x'.repeat(200) });

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One autocannon run; latency percentiles come from each response's fractional time, not whole milliseconds. */
async function measure(target: string, operation: StateBenchRow['operation'], opts: LoadOptions, pid: number): Promise<StateBenchRow> {
  const latencies: number[] = [];
  const cpu0 = cpuMs(pid);
  const result = await new Promise<LoadResult>((resolve, reject) => {
    autocannon(opts, (err, res) => (err ? reject(err) : resolve(res))).on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
  latencies.sort((a, b) => a - b);
  return {
    target,
    operation,
    connections: opts.connections ?? 1,
    requestsPerSec: result.requests.average,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    failures: result.non2xx + result.errors + result.timeouts,
    cpuUsPerRequest: ((cpuMs(pid) - cpu0) * 1000) / Math.max(1, result.requests.total),
  };
}

/**
 * Seconds of reads, then of saves, before the first row, not measured: a JIT-compiled sidecar is measured warm, as
 * it runs for days (with reads only, the first save row also timed the compiling of the save path: its p99 doubled).
 */
const WARM_UP_SEC = 2;

/** Saves to one of SAVE_KEYS keys per request, as the save rows do. */
function saveRequests(headers: Readonly<Record<string, string>> = {}): LoadOptions['requests'] {
  let n = 0;
  return [
    {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      setupRequest: (req) => ({ ...req, body: `[{"key":"bench-${n++ % SAVE_KEYS}","value":${VALUE}}]` }),
    },
  ];
}

async function warmUp(base: string): Promise<void> {
  await autocannon({ url: `${base}/bench-get`, connections: 8, duration: WARM_UP_SEC });
  await autocannon({ url: base, connections: 8, duration: WARM_UP_SEC, requests: saveRequests() });
}

/** Starts svcd for the target, measures get and save at each connection count, removes its keys and stops svcd. */
export async function benchStateTarget(target: StateBenchTarget, opts: StateBenchOptions = {}): Promise<StateBenchRow[]> {
  const svcd = await SvcdProcess.start({ appId: `bench-${randomBytes(3).toString('hex')}`, ...target.svcd, args: ['--log-level', 'warn', ...(target.svcd.args ?? [])] });
  try {
    return await benchSidecar({ label: target.label, url: svcd.httpUrl, pid: svcd.child.pid!, store: target.store ?? 'store' }, opts);
  } finally {
    await svcd.stop();
  }
}

/** A running sidecar: its HTTP base URL, its process (for CPU) and a state store it serves. */
export interface Sidecar {
  readonly label: string;
  readonly url: string;
  readonly pid: number;
  readonly store: string;
}

/** Measures get and save at each connection count against a running sidecar, then removes the keys it wrote. */
export async function benchSidecar(sidecar: Sidecar, opts: StateBenchOptions = {}): Promise<StateBenchRow[]> {
  const duration = opts.durationSec ?? 5;
  const base = `${sidecar.url}/v1.0/state/${sidecar.store}`;
  const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const rows: StateBenchRow[] = [];
  const seeded = await post(base, `[{"key":"bench-get","value":${VALUE}}]`);
  if (seeded.status !== 204) throw new Error(`seeding ${sidecar.label} failed: ${seeded.status} ${await seeded.text()}`);
  await warmUp(base);
  const headers = opts.headers ?? {};
  for (const connections of opts.connections ?? [1, 64]) {
    rows.push(await measure(sidecar.label, 'get', { url: `${base}/bench-get`, connections, duration, headers: { ...headers } }, sidecar.pid));
    rows.push(await measure(sidecar.label, 'save', { url: base, connections, duration, requests: saveRequests(headers) }, sidecar.pid));
  }
  const keys = ['bench-get', ...Array.from({ length: SAVE_KEYS }, (_, i) => `bench-${i}`)];
  const cleanup = await post(`${base}/transaction`, JSON.stringify({ operations: keys.map((key) => ({ operation: 'delete', request: { key } })) }));
  if (cleanup.status !== 204) throw new Error(`cleaning up ${sidecar.label} failed: ${cleanup.status} ${await cleanup.text()}`);
  return rows;
}

export function printStateTable(rows: readonly StateBenchRow[]): void {
  const header = ['store', 'operation', 'connections', 'requests/s', 'p50 ms', 'p99 ms', 'sidecar CPU µs/req', 'failures'];
  const lines = rows.map((r) => [r.target, r.operation, String(r.connections), r.requestsPerSec.toFixed(0), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2), r.cpuUsPerRequest.toFixed(0), String(r.failures)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(fmt(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const l of lines) console.log(fmt(l));
}

/** The built-in targets: the embedded SQLite default and Redis. */
export function builtinStateTargets(): StateBenchTarget[] {
  return [
    { label: 'SQLite', svcd: { resources: { 'store.yaml': componentYaml('store', 'state.sqlite') } } },
    { label: 'Redis', svcd: { resources: { 'store.yaml': componentYaml('store', 'state.redis', { redisHost: TEST_REDIS_HOST }) } } },
  ];
}

export async function runStateBench(opts: StateBenchOptions = {}): Promise<void> {
  console.log(`state API over HTTP: autocannon, ${opts.durationSec ?? 5} s per row after ${WARM_UP_SEC} s each of unmeasured reads and saves, one svcd per store, ~300-byte JSON values`);
  const rows: StateBenchRow[] = [];
  const other = process.env.BENCH_SIDECAR_URL;
  if (other !== undefined) {
    const pid = Number(process.env.BENCH_SIDECAR_PID);
    if (!Number.isInteger(pid)) throw new Error('BENCH_SIDECAR_PID must be the pid of the sidecar at BENCH_SIDECAR_URL (for its CPU time)');
    rows.push(...(await benchSidecar({ label: `sidecar at ${other}`, url: other, pid, store: process.env.BENCH_SIDECAR_STORE ?? 'statestore' }, opts)));
  } else {
    for (const target of builtinStateTargets()) rows.push(...(await benchStateTarget(target, opts)));
  }
  printStateTable(rows);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runStateBench();
