/**
 * State API benchmark against a real svcd process: requests/s and p50/p99 latency of GET and save (POST) over
 * HTTP, at 1 and 64 concurrent connections, for each store target. Prints one table.
 * Run: `npm run build && node bench/dist/src/state.js` (Redis must be up: `bash scripts/ensure-services.sh`).
 * Other benchmarks add rows with `benchStateTarget` (e.g. a pluggable store) and print them with `printStateTable`.
 */
import autocannon, { type Options as LoadOptions, type Result as LoadResult } from 'autocannon';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { componentYaml, SvcdProcess, TEST_REDIS_HOST, type SvcdOptions } from '@svc/runtime/test-support';

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
}

/** Distinct keys written by the save run, so writes do not all contend on one row. */
const SAVE_KEYS = 1000;
const VALUE = JSON.stringify({ orderId: 'o-123456', customer: 'c-42', items: [{ sku: 'book', qty: 1, price: 12.5 }], note: 'x'.repeat(200) });

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One autocannon run; latency percentiles come from each response's fractional time, not whole milliseconds. */
async function measure(target: string, operation: StateBenchRow['operation'], opts: LoadOptions): Promise<StateBenchRow> {
  const latencies: number[] = [];
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
  };
}

/** Starts svcd for the target, measures get and save at each connection count, removes its keys and stops svcd. */
export async function benchStateTarget(target: StateBenchTarget, opts: StateBenchOptions = {}): Promise<StateBenchRow[]> {
  const duration = opts.durationSec ?? 5;
  const store = target.store ?? 'store';
  const svcd = await SvcdProcess.start({ appId: `bench-${randomBytes(3).toString('hex')}`, ...target.svcd, args: ['--log-level', 'warn', ...(target.svcd.args ?? [])] });
  const base = `${svcd.httpUrl}/v1.0/state/${store}`;
  const rows: StateBenchRow[] = [];
  try {
    const seeded = await svcd.request('POST', `/v1.0/state/${store}`, `[{"key":"bench-get","value":${VALUE}}]`);
    if (seeded.status !== 204) throw new Error(`seeding ${target.label} failed: ${seeded.status} ${await seeded.text()}`);
    for (const connections of opts.connections ?? [1, 64]) {
      rows.push(await measure(target.label, 'get', { url: `${base}/bench-get`, connections, duration }));
      let n = 0;
      const save = await measure(target.label, 'save', {
        url: base,
        connections,
        duration,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            setupRequest: (req) => ({ ...req, body: `[{"key":"bench-${n++ % SAVE_KEYS}","value":${VALUE}}]` }),
          },
        ],
      });
      rows.push(save);
    }
    const keys = ['bench-get', ...Array.from({ length: SAVE_KEYS }, (_, i) => `bench-${i}`)];
    const cleanup = await svcd.request('POST', `/v1.0/state/${store}/transaction`, { operations: keys.map((key) => ({ operation: 'delete', request: { key } })) });
    if (cleanup.status !== 204) throw new Error(`cleaning up ${target.label} failed: ${cleanup.status} ${await cleanup.text()}`);
  } finally {
    await svcd.stop();
  }
  return rows;
}

export function printStateTable(rows: readonly StateBenchRow[]): void {
  const header = ['store', 'operation', 'connections', 'requests/s', 'p50 ms', 'p99 ms', 'failures'];
  const lines = rows.map((r) => [r.target, r.operation, String(r.connections), r.requestsPerSec.toFixed(0), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2), String(r.failures)]);
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
  console.log(`state API over HTTP: autocannon, ${opts.durationSec ?? 5} s per row, one svcd per store, ~300-byte JSON values`);
  const rows: StateBenchRow[] = [];
  for (const target of builtinStateTargets()) rows.push(...(await benchStateTarget(target, opts)));
  printStateTable(rows);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runStateBench();
