/**
 * Workflow engine benchmark with the real SDK: a real svcd process, a real `@dapr/durabletask-js` worker process
 * and the SDK's gRPC client. For SQLite and Redis as the actor store it prints:
 *   (a) 5 sequential activities and (b) fan-out/fan-in of 20 activities, at 1, 50 and 500 instances in flight:
 *       workflows/s (instances completed ÷ wall time) and start-to-completion p50/p99 as the client sees it
 *       (schedule call → completion returned by WaitForInstanceCompletion);
 *   (c) 1,000 (started 50 at a time) and 10,000 (500 at a time) instances waiting on a 5 s durable timer:
 *       start rate, how many completed within 60 s after the last start, and for those, start-to-completion
 *       p50/p99 from the engine's own createdAt/lastUpdatedAt minus the 5 s. Once started as fast as the sidecar
 *       accepts them (a sidecar that starts them faster gets them due closer together, so the tail also measures
 *       how fast it drains a burst), and once paced at the same rate for every sidecar (500/s and 800/s, rates
 *       daprd also sustains), which compares the timers' precision under one load;
 *   svcd's RSS after each store's run, and beside every row the sidecar's and the worker's CPU per workflow (from /proc).
 * Instance counts per cell are in the table; scale them with BENCH_SCALE (default 1); BENCH_WORKLOADS picks rows;
 * BENCH_SVCD_MAINS (comma-separated svcd launchers, e.g. another checkout's `runtime/bin/svcd.js`) runs each build in
 * turn per store. Run:
 * `npm run build && node bench/dist/src/workflow.js` (Redis at 127.0.0.1:6379: `bash scripts/ensure-services.sh`).
 * Any other sidecar serving the Durable Task protocol is measured the same way, side by side:
 * `BENCH_SIDECAR_GRPC=127.0.0.1:50001 BENCH_SIDECAR_PID=<its pid>[,<pid of each process it needs>] node bench/dist/src/workflow.js`
 * (daprd: its placement and scheduler, whose CPU is then counted as the sidecar's).
 */
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { OrchestrationStatus } from '@dapr/durabletask-js/orchestration/enum/orchestration-status.enum.js';
import { actorStore, SvcdProcess, type ActorStoreKind } from '@svc/runtime/test-support';
import { closedLoop, cpuMs, percentile, rssMiB, startWorker, svcdBuilds, type Cell } from './workflow-loop.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
// The SDK client prints a line per call; the bench prints through `print` only.
console.log = () => undefined;
console.info = () => undefined;

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const count = (n: number) => Math.max(1, Math.round(n * SCALE));
/** Which workloads run: `sequence`, `fanout`, `timers` (comma-separated; default all), e.g. to profile one. */
const WORKLOADS = new Set((process.env.BENCH_WORKLOADS ?? 'sequence,fanout,timers').split(','));
const TIMER_MS = 5000;
/**
 * Workflows of each kind run before the first row, not measured: a JIT-compiled sidecar is measured warm, as it
 * runs for days (without it, the one-in-flight rows of svcd timed V8 compiling its workflow path: 17 wf/s cold
 * against 75 warm; start-up is measured by startup.ts).
 */
const WARM_UP_INSTANCES = 200;
/** How long (c) waits for its timers to complete after the last instance started, so the bench stays short. */
const TIMER_WAIT_LIMIT_MS = 60_000;

/**
 * Starts `instances` timer workflows (`inFlight` start calls at a time; with `perSecond`, start i not before i ÷
 * perSecond seconds), then waits for all of them.
 */
async function timers(client: TaskHubGrpcClient, prefix: string, instances: number, inFlight: number, perSecond?: number): Promise<Cell & { startRate: number }> {
  let next = 0;
  const t0 = performance.now();
  const starter = async () => {
    for (let i = next++; i < instances; i = next++) {
      const wait = perSecond === undefined ? 0 : t0 + (i * 1000) / perSecond - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await client.scheduleNewOrchestration('sleeper', TIMER_MS, `${prefix}-${i}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, instances) }, starter));
  const startRate = instances / ((performance.now() - t0) / 1000);
  const overheads: number[] = [];
  let failed = 0;
  next = 0;
  // Bounded: whatever has not completed TIMER_WAIT_LIMIT_MS after the last start counts as "not completed".
  const deadline = Date.now() + TIMER_MS + TIMER_WAIT_LIMIT_MS;
  const waiter = async () => {
    for (let i = next++; i < instances; i = next++) {
      const left = (deadline - Date.now()) / 1000;
      const state = left > 0 ? await client.waitForOrchestrationCompletion(`${prefix}-${i}`, false, left).catch(() => undefined) : undefined;
      if (state?.runtimeStatus !== OrchestrationStatus.COMPLETED) failed++;
      else overheads.push(state.lastUpdatedAt.getTime() - state.createdAt.getTime() - TIMER_MS);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, instances) }, waiter));
  const elapsed = (performance.now() - t0) / 1000;
  overheads.sort((a, b) => a - b);
  const workload = `sleeper ${TIMER_MS / 1000}s${perSecond === undefined ? '' : ` paced ${perSecond}/s`}`;
  return { workload, inFlight, instances, perSecond: overheads.length / elapsed, p50: percentile(overheads, 50), p99: percentile(overheads, 99), failed, startRate };
}

/**
 * Every workload against one running sidecar: its Durable Task gRPC address and its processes (the first is the
 * sidecar, for RSS; CPU is summed over all of them, so a sidecar that needs other processes to run workflows,
 * such as daprd's placement and scheduler, is charged for them).
 */
async function benchSidecar(label: string, grpcAddress: string, pids: readonly number[]): Promise<void> {
  const cpu = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const worker = await startWorker(grpcAddress);
  const client = new TaskHubGrpcClient(grpcAddress);
  try {
    print(`\n## ${label}\n`);
    const warm = performance.now();
    for (const workflow of ['sequence', 'fanout']) await closedLoop([client], workflow, `warm-${workflow}-${Date.now()}`, WARM_UP_INSTANCES, 50);
    print(`(warm-up, not measured: ${WARM_UP_INSTANCES} of each workflow at 50 in flight, ${((performance.now() - warm) / 1000).toFixed(1)} s)\n`);
    print('| workload | in flight | instances | workflows/s | p50 ms | p99 ms | not completed | sidecar CPU ms/workflow | worker CPU ms/workflow |');
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    // The worker runs the same code under every sidecar: its CPU per workflow shows how fast the machine ran.
    const measured = async <T extends Cell>(run: () => Promise<T>, note: string): Promise<T> => {
      const sidecar0 = cpu();
      const worker0 = cpuMs(worker.pid!);
      const c = await run();
      const perWorkflow = (ms: number) => (ms / c.instances).toFixed(2);
      print(`| ${c.workload}${note} | ${c.inFlight} | ${c.instances} | ${c.perSecond.toFixed(1)} | ${c.p50.toFixed(0)} | ${c.p99.toFixed(0)} | ${c.failed} | ${perWorkflow(cpu() - sidecar0)} | ${perWorkflow(cpuMs(worker.pid!) - worker0)} |`);
      return c;
    };
    // One in flight takes few seconds per instance count: enough instances there for a p99 that compares (at
    // BENCH_SCALE=0.5, 10 and 5 instances gave ratios that moved by half between rounds).
    const plan: [string, number, number][] = [
      ['sequence', 1, count(100)],
      ['sequence', 50, count(200)],
      ['sequence', 500, count(500)],
      ['fanout', 1, count(50)],
      ['fanout', 50, count(100)],
      ['fanout', 500, count(250)],
    ];
    for (const [workflow, inFlight, instances] of plan.filter(([workflow]) => WORKLOADS.has(workflow))) {
      const note = workflow === 'sequence' ? ' (5 sequential activities)' : ' (20 parallel activities)';
      await measured(() => closedLoop([client], workflow, `${workflow}-${inFlight}-${Date.now()}`, instances, inFlight), note);
    }
    const startRates: string[] = [];
    const timerCells: [inFlight: number, instances: number, perSecond?: number][] = [
      [50, count(1000)],
      [500, count(10_000)],
      [50, count(1000), 500],
      [500, count(10_000), 800],
    ];
    for (const [inFlight, instances, perSecond] of WORKLOADS.has('timers') ? timerCells : []) {
      const note = ' (p50/p99 = completion − created − 5 s; not completed = still waiting 60 s after the last start)';
      const t = await measured(() => timers(client, `sleeper-${inFlight}-${Date.now()}`, instances, inFlight, perSecond), note);
      startRates.push(`${instances} started at ${t.startRate.toFixed(0)}/s`);
    }
    print(`\n${label}: timer workflows ${startRates.join(', ')}; sidecar RSS at the end: ${rssMiB(pids[0]!).toFixed(0)} MiB`);
  } finally {
    await client.stop();
    worker.kill('SIGTERM');
  }
}

async function benchStore(kind: ActorStoreKind, build: (typeof svcdBuilds)[number]): Promise<void> {
  const store = actorStore(kind, 'bench-wf');
  const svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, svcdMain: build.main, args: ['--log-level', 'warn'] });
  try {
    await benchSidecar(`svcd${svcdBuilds.length > 1 ? ` ${build.label}` : ''}, actor store: ${kind}`, svcd.grpcAddress, [svcd.child.pid!]);
  } finally {
    await svcd.dispose();
    // A run leaves ~100k keys in Redis: deleted with SCAN in batches.
    await store.cleanup();
  }
}

const began = Date.now();
print(`# workflow benchmark (real svcd + @dapr/durabletask-js worker and client; BENCH_SCALE=${SCALE})`);
const other = process.env.BENCH_SIDECAR_GRPC;
if (other !== undefined) {
  const pids = (process.env.BENCH_SIDECAR_PID ?? '').split(',').map(Number);
  if (!pids.every((pid) => Number.isInteger(pid) && pid > 0)) {
    throw new Error('BENCH_SIDECAR_PID must be the pid of the sidecar at BENCH_SIDECAR_GRPC, then those of any processes it needs to run workflows, comma-separated (for CPU time and RSS)');
  }
  await benchSidecar(`sidecar at ${other}`, other, pids);
} else {
  for (const build of svcdBuilds) print(`build ${build.label}: ${build.main}`);
  for (const kind of (process.env.BENCH_STORES ?? 'sqlite,redis').split(',') as ActorStoreKind[]) for (const build of svcdBuilds) await benchStore(kind, build);
}
print(`\ntotal ${((Date.now() - began) / 1000).toFixed(0)} s`);
process.exit(0);
