/**
 * How fast svcd drains a burst of durable timers: BENCH_TIMERS (default 5,000) workflow instances, each waiting on
 * one timer, all due at the same moment T (real svcd, real `@dapr/durabletask-js` worker process and client).
 * Each run starts a fresh svcd, warms it up (500 timer workflows, not measured), starts the instances and waits
 * until every timer is created, then measures from T:
 *   - without a worker (the worker is stopped before T): until every TimerFired is committed
 *     (`svc_workflow_timers_fired_total`): fires/s and svcd's CPU per fire;
 *   - with the worker connected: the same, then until every instance completed: completions/s, svcd's CPU per
 *     timer workflow and the worker's, and completion − T (p50/p99, from the engine's lastUpdatedAt).
 * CPU is svcd's utime + stime from /proc over the measured window (metrics scraped every 100 ms during it, the same
 * for every version). Run: `npm run build && node bench/dist/src/timer-drain.js`; BENCH_STORES (default
 * `sqlite,redis`; Redis at 127.0.0.1:6379: `bash scripts/ensure-services.sh`), BENCH_WORKER (default
 * `none,connected`), BENCH_ROUNDS (default 1), BENCH_COLD=1 (timers due after the instances left memory).
 */
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import type { ChildProcess } from 'node:child_process';
import { actorStore, SvcdProcess, type ActorStoreKind } from '@svc/runtime/test-support';
import { cpuMs, percentile, startWorker } from './workflow-loop.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
console.log = () => undefined; // the SDK client logs every call
console.info = () => undefined;

const TIMERS = Number(process.env.BENCH_TIMERS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const WARM_UP = 500;
const START_IN_FLIGHT = 500;
const POLL_MS = 100;
const COLD = process.env.BENCH_COLD === '1';
/** The workflow actor type's idle timeout (docs/workflow-engine.md, Memory and writes per turn). */
const IDLE_TIMEOUT_MS = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The sum of a metric's samples whose line starts with `series` (name and, optionally, labels). */
async function metric(svcd: SvcdProcess, series: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${svcd.ports.metrics}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(series)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

const FIRED = 'svc_workflow_timers_fired_total';
const COMPLETED = 'svc_workflow_instances_completed_total{status="COMPLETED"';
/** Orchestration answers recorded: one per instance once its timer is created. */
const ANSWERS = 'svc_workflow_turn_latency_seconds_count';
const WORKERS = 'svc_workflow_connected_workers';

/** Polls until `series` reached `target` (or, with `down`, fell to it); returns when (performance.now()). */
async function reached(svcd: SvcdProcess, series: string, target: number, limitMs: number, down = false): Promise<number> {
  const deadline = performance.now() + limitMs;
  for (;;) {
    const value = await metric(svcd, series);
    if (down ? value <= target : value >= target) return performance.now();
    if (performance.now() > deadline) throw new Error(`${series} did not reach ${target} within ${limitMs} ms`);
    await sleep(POLL_MS);
  }
}

/** Starts `count` instances of sleepUntil(at), START_IN_FLIGHT start calls at a time. */
async function startAll(client: TaskHubGrpcClient, prefix: string, count: number, at: number): Promise<void> {
  let next = 0;
  const starter = async () => {
    for (let i = next++; i < count; i = next++) await client.scheduleNewOrchestration('sleepUntil', at, `${prefix}-${i}`);
  };
  await Promise.all(Array.from({ length: Math.min(START_IN_FLIGHT, count) }, starter));
}

interface Drain {
  firesPerSecond: number;
  cpuPerFire: number;
  completions?: { perSecond: number; cpuPerWorkflow: number; workerCpuPerWorkflow: number; p50: number; p99: number };
}

/** One measured burst against a fresh svcd; `withWorker` false stops the worker before the timers come due. */
async function burst(kind: ActorStoreKind, withWorker: boolean): Promise<Drain> {
  const store = actorStore(kind, 'bench-drain');
  const svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, args: ['--log-level', 'warn'] });
  let worker: ChildProcess | undefined = await startWorker(svcd.grpcAddress);
  const client = new TaskHubGrpcClient(svcd.grpcAddress);
  const pid = svcd.child.pid!;
  try {
    const warmAt = Date.now() + 2000;
    await startAll(client, 'warm', WARM_UP, warmAt);
    await reached(svcd, COMPLETED, WARM_UP, 120_000);

    const answers0 = await metric(svcd, ANSWERS);
    // Far enough ahead that every instance has its timer before it is due (with timers created, 140–2,500/s on the
    // shared 2-core machine), and either before the workflow actors' idle timeout (warm: every instance is still
    // in memory when its timer fires, as with 5 s timers) or after it (cold: each fire loads its instance).
    const due = Date.now() + (COLD ? IDLE_TIMEOUT_MS + 10_000 : 8_000) + TIMERS * 6;
    const started = performance.now();
    await startAll(client, 'burst', TIMERS, due);
    await reached(svcd, ANSWERS, answers0 + TIMERS, Math.max(0, due - Date.now() - 500));
    if (!COLD && performance.now() - started > IDLE_TIMEOUT_MS - 1000) throw new Error('starting took longer than the idle timeout: the first instances may be out of memory');
    if (!withWorker) {
      worker.kill('SIGKILL'); // its stream ends at once (a graceful stop of the SDK worker can take seconds)
      worker = undefined;
      await reached(svcd, WORKERS, 0, 10_000, true);
    }
    const fired0 = await metric(svcd, FIRED);
    const completed0 = await metric(svcd, COMPLETED);
    if (Date.now() > due - 300) throw new Error('the instances were not ready before their timers came due: raise the lead time');
    await sleep(due - 300 - Date.now());
    const cpu0 = cpuMs(pid);
    const workerCpu0 = worker ? cpuMs(worker.pid!) : 0;
    await sleep(due - Date.now());
    const t0 = performance.now();
    const fired = await reached(svcd, FIRED, fired0 + TIMERS, 300_000);
    const cpuFired = cpuMs(pid);
    const drain: Drain = { firesPerSecond: TIMERS / ((fired - t0) / 1000), cpuPerFire: (cpuFired - cpu0) / TIMERS };
    if (!withWorker) return drain;
    const completed = await reached(svcd, COMPLETED, completed0 + TIMERS, 300_000);
    const cpuCompleted = cpuMs(pid);
    const workerCpu = cpuMs(worker!.pid!) - workerCpu0;
    const lags: number[] = [];
    for (let i = 0; i < TIMERS; i++) {
      const state = await client.getOrchestrationState(`burst-${i}`, false);
      if (state) lags.push(state.lastUpdatedAt.getTime() - due);
    }
    lags.sort((a, b) => a - b);
    return {
      ...drain,
      completions: { perSecond: TIMERS / ((completed - t0) / 1000), cpuPerWorkflow: (cpuCompleted - cpu0) / TIMERS, workerCpuPerWorkflow: workerCpu / TIMERS, p50: percentile(lags, 50), p99: percentile(lags, 99) },
    };
  } finally {
    await client.stop();
    worker?.kill('SIGTERM');
    await svcd.dispose();
    await store.cleanup();
  }
}

print(`# timer drain (${TIMERS} timers due at one moment, instances ${COLD ? 'out of memory (cold)' : 'in memory (warm)'}; real svcd + @dapr/durabletask-js)`);
print('| store | worker | round | fires/s | svcd CPU ms/fire | completed/s | svcd CPU ms/workflow | worker CPU ms/workflow | completion − due p50 / p99 ms |');
print('|---|---|---:|---:|---:|---:|---:|---:|---:|');
for (let round = 1; round <= ROUNDS; round++) {
  for (const kind of (process.env.BENCH_STORES ?? 'sqlite,redis').split(',') as ActorStoreKind[]) {
    for (const withWorker of (process.env.BENCH_WORKER ?? 'none,connected').split(',').map((w) => w === 'connected')) {
      const d = await burst(kind, withWorker);
      const c = d.completions;
      const done = c ? `${c.perSecond.toFixed(0)} | ${c.cpuPerWorkflow.toFixed(2)} | ${c.workerCpuPerWorkflow.toFixed(2)} | ${c.p50.toFixed(0)} / ${c.p99.toFixed(0)}` : '— | — | — | —';
      print(`| ${kind} | ${withWorker ? 'connected' : 'none'} | ${round} | ${d.firesPerSecond.toFixed(0)} | ${d.cpuPerFire.toFixed(3)} | ${done} |`);
    }
  }
}
process.exit(0);
