/**
 * The embedded SQLite store's write path alone, in this process: BENCH_TRANSACTIONS (default 20,000) transactions of
 * five unconditional upserts each (four history-like keys and a metadata key, as a workflow turn writes), after
 * 3,000 unmeasured. Prints CPU µs per transaction (process.cpuUsage) and the wall time. BENCH_RUNTIME_DISTS
 * (comma-separated `runtime/dist` folders of other checkouts) measures several builds in turn, A B A B for
 * BENCH_ROUNDS (default 3) rounds, each on a fresh database.
 * Run: `npm run build && node bench/dist/src/sqlite-writes.js`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as SqliteModule from '@svc/runtime/state/sqlite.js';

type SqliteStateStore = SqliteModule.SqliteStateStore;

const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ownDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../runtime/dist');
const dists = process.env.BENCH_RUNTIME_DISTS?.split(',') ?? [ownDist];
const VALUE = Buffer.from(JSON.stringify({ payload: 'x'.repeat(200) }));

async function transactions(store: SqliteStateStore, n: number): Promise<{ cpuUs: number; wallMs: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const instance = `app||wf||inst-${i % 5000}`;
    const ops = [];
    for (let k = 0; k < 4; k++) ops.push({ operation: 'upsert' as const, request: { key: `${instance}||history-${String(k + (i % 7) * 4).padStart(6, '0')}`, value: VALUE } });
    ops.push({ operation: 'upsert' as const, request: { key: `${instance}||metadata`, value: VALUE } });
    await store.transact(ops);
  }
  const cpu = process.cpuUsage(cpu0);
  return { cpuUs: (cpu.user + cpu.system) / n, wallMs: performance.now() - t0 };
}

process.stdout.write(`SQLite store, ${TRANSACTIONS} transactions of 5 unconditional upserts\n| round | build | CPU µs per transaction | wall ms |\n|---|---|---:|---:|\n`);
for (let round = 1; round <= ROUNDS; round++) {
  for (const [i, dist] of dists.entries()) {
    const { SqliteStateStore: Store } = (await import(pathToFileURL(path.join(dist, 'src/state/sqlite.js')).href)) as typeof SqliteModule;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-sqlite-writes-'));
    // svcd's defaults for the embedded store.
    const store = await Store.open({ databasePath: path.join(dir, 'state.db'), tableName: 'state', synchronous: 'NORMAL', busyTimeoutMs: 5000 });
    try {
      await transactions(store, 3000);
      const { cpuUs, wallMs } = await transactions(store, TRANSACTIONS);
      process.stdout.write(`| ${round} | ${String.fromCharCode(65 + i)} ${dist === ownDist ? '(this checkout)' : dist} | ${cpuUs.toFixed(1)} | ${wallMs.toFixed(0)} |\n`);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
