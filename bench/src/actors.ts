/**
 * Actor runtime benchmark, in process against the runtime with the embedded SQLite store (a real file, WAL,
 * synchronous=NORMAL — svcd's default store). Prints one table:
 *   - turns/s for 1, 1,000 and 100,000 distinct actors: each turn reads a counter key and writes it back (one
 *     store transaction per turn), 256 calls in flight, calls spread round-robin over the actors;
 *   - reminder lag (turn start − due time) p50/p99 for 10,000 pending reminders due over 5 s;
 *   - RSS per 10,000 active actors (each with one cached state key), after GC when run with --expose-gc.
 * Run: `npm run build && node --expose-gc bench/dist/src/actors.js`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { LocalActorRuntime } from '@svc/runtime/actors/runtime.js';
import type { Actor } from '@svc/runtime/actors/types.js';
import { createLogger } from '@svc/runtime/log/logger.js';
import { SqliteStateStore } from '@svc/runtime/state/sqlite.js';

const log = createLogger({ level: 'error', json: true });
const IN_FLIGHT = 256;

interface Row {
  readonly measure: string;
  readonly value: string;
  readonly how: string;
}

async function withRuntime<T>(work: (rt: LocalActorRuntime) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-actors-'));
  const store = await SqliteStateStore.open({ databasePath: path.join(dir, 'bench.db'), tableName: 'state', synchronous: 'NORMAL', busyTimeoutMs: 5000 });
  const runtime = new LocalActorRuntime({ appId: 'bench', store, log, metrics: new Registry() });
  try {
    return await work(runtime);
  } finally {
    await runtime.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const counter: () => Actor = () => ({
  async invoke(_method, _data, ctx) {
    const n = Number((await ctx.state.get('n'))?.toString() ?? '0');
    ctx.state.set('n', Buffer.from(String(n + 1)));
    return undefined;
  },
});

async function turnsPerSecond(actors: number, turns: number): Promise<number> {
  return withRuntime(async (rt) => {
    rt.registerType('Counter', counter);
    await rt.start();
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      for (let i = next++; i < turns; i = next++) await rt.invoke('Counter', `a${i % actors}`, 'inc');
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    return turns / ((performance.now() - started) / 1000);
  });
}

async function reminderLag(count: number, spreadMs: number): Promise<{ p50: number; p99: number; max: number }> {
  return withRuntime(async (rt) => {
    const lags: number[] = [];
    let resolveAll!: () => void;
    const allFired = new Promise<void>((r) => (resolveAll = r));
    rt.registerType('Sleeper', () => ({
      invoke: () => Promise.resolve(undefined),
      onReminder(_name, _data, ctx, info) {
        lags.push(Date.now() - info.dueAt);
        if (lags.length === count) resolveAll();
        return Promise.resolve();
      },
    }));
    await rt.start();
    // Create all reminders first (their due times start after creation ends), so all 10,000 are pending.
    const creates: Promise<void>[] = [];
    const base = Date.now() + 3000;
    for (let i = 0; i < count; i++) creates.push(rt.createReminder('Sleeper', `s${i}`, 'wake', { dueAt: base + Math.floor((i * spreadMs) / count) }));
    await Promise.all(creates);
    if (Date.now() > base) throw new Error('creating the reminders took longer than the head start; raise it');
    // The runtime's timers are unref'd (they never hold a process open); here nothing else would.
    const keepAlive = setInterval(() => undefined, 1000);
    await allFired;
    clearInterval(keepAlive);
    lags.sort((a, b) => a - b);
    const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!;
    return { p50: at(0.5), p99: at(0.99), max: lags[lags.length - 1]! };
  });
}

function memoryMiB(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss / 2 ** 20, heap: m.heapUsed / 2 ** 20 };
}

/** Runs first, while the process has not grown yet: an RSS delta means little once freed pages are kept. */
async function memoryPer10k(actors: number): Promise<{ rss: number; heap: number }> {
  return withRuntime(async (rt) => {
    rt.registerType('Counter', counter);
    await rt.start();
    const before = memoryMiB();
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < actors; i = next++) await rt.invoke('Counter', `m${i}`, 'inc');
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    if (rt.activeCount('Counter') !== actors) throw new Error('actors were deactivated during the measurement');
    const after = memoryMiB();
    return { rss: ((after.rss - before.rss) / actors) * 10_000, heap: ((after.heap - before.heap) / actors) * 10_000 };
  });
}

async function main(): Promise<void> {
  const started = performance.now();
  const rows: Row[] = [];
  const mem = await memoryPer10k(50_000);
  const tps = (n: number) => Math.round(n).toLocaleString('en-US');
  rows.push({ measure: 'turns/s, 1 actor', value: tps(await turnsPerSecond(1, 20_000)), how: '20,000 turns on one actor (serialised by its queue)' });
  rows.push({ measure: 'turns/s, 1,000 actors', value: tps(await turnsPerSecond(1_000, 100_000)), how: '100,000 turns, 100 per actor' });
  rows.push({ measure: 'turns/s, 100,000 actors', value: tps(await turnsPerSecond(100_000, 200_000)), how: '200,000 turns, 2 per actor (activations + first reads included)' });
  const lag = await reminderLag(10_000, 5_000);
  rows.push({ measure: 'reminder lag p50 / p99 (max)', value: `${lag.p50} / ${lag.p99} (${lag.max}) ms`, how: '10,000 one-shot reminders, due times spread over 5 s' });
  rows.push({ measure: 'RSS (heap) per 10,000 active actors', value: `${mem.rss.toFixed(1)} (${mem.heap.toFixed(1)}) MiB`, how: '50,000 actors activated, one cached key each; delta / 5, measured first' });

  const w = [Math.max(...rows.map((r) => r.measure.length)), Math.max(...rows.map((r) => r.value.length))];
  process.stdout.write(`\nActor runtime (in process, SQLite store, ${os.cpus().length} CPUs, Node ${process.version})\n\n`);
  process.stdout.write(`${'measure'.padEnd(w[0]!)}  ${'value'.padStart(w[1]!)}  how\n`);
  for (const r of rows) process.stdout.write(`${r.measure.padEnd(w[0]!)}  ${r.value.padStart(w[1]!)}  ${r.how}\n`);
  process.stdout.write(`\n(total ${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}

await main();
