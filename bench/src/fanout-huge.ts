/**
 * One workflow fanning out to a huge number of activities (default 100,000; BENCH_FANOUT sets it) on each actor
 * store, with a real svcd and a real `@dapr/durabletask-js` worker process. Prints per store: time to complete,
 * svcd's peak RSS and CPU time, and how long `/v1.0/healthz` took while it ran (sampled every 100 ms): the
 * engine must stay responsive and bounded however wide the fan-out. BENCH_SVCD_MAINS (comma-separated svcd launchers,
 * e.g. another checkout's `runtime/bin/svcd.js`) runs each build in turn on each store, BENCH_ROUNDS times (A B A B).
 * Run: `npm run build && node bench/dist/src/fanout-huge.js` (BENCH_STORES=sqlite,redis,postgresql).
 */
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { OrchestrationStatus } from '@dapr/durabletask-js/orchestration/enum/orchestration-status.enum.js';
import { actorStore, SvcdProcess, type ActorStoreKind } from '@svc/runtime/test-support';
import { cpuMs, percentile, rssMiB, startWorker, svcdBuilds } from './workflow-loop.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
console.log = () => undefined;
console.info = () => undefined;

const FANOUT = Number(process.env.BENCH_FANOUT ?? 100_000);
const LIMIT_S = Number(process.env.BENCH_FANOUT_LIMIT_S ?? 1200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);

/** Samples svcd's health latency and RSS until stopped. */
function sampler(svcd: SvcdProcess): { stop: () => Promise<{ health: number[]; peakRss: number }> } {
  const health: number[] = [];
  let peakRss = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await svcd.request('GET', '/v1.0/healthz').catch(() => undefined);
      health.push(performance.now() - t0);
      peakRss = Math.max(peakRss, rssMiB(svcd.child.pid!));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { health: health.sort((a, b) => a - b), peakRss };
    },
  };
}

async function benchStore(kind: ActorStoreKind, build: (typeof svcdBuilds)[number]): Promise<void> {
  const store = actorStore(kind, 'bench-fanout');
  const svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, svcdMain: build.main, args: ['--log-level', 'warn'] });
  const worker = await startWorker(svcd.grpcAddress);
  const client = new TaskHubGrpcClient(svcd.grpcAddress);
  try {
    const idleRss = rssMiB(svcd.child.pid!);
    const cpu0 = cpuMs(svcd.child.pid!);
    const samples = sampler(svcd);
    const t0 = performance.now();
    const id = await client.scheduleNewOrchestration('bigFanout', FANOUT, `fanout-${FANOUT}`);
    const state = await client.waitForOrchestrationCompletion(id, true, LIMIT_S).catch(() => undefined);
    const seconds = (performance.now() - t0) / 1000;
    const { health, peakRss } = await samples.stop();
    const ok = state?.runtimeStatus === OrchestrationStatus.COMPLETED && state.serializedOutput === String(FANOUT);
    print(
      `| ${kind} | ${build.label} | ${FANOUT} | ${ok ? seconds.toFixed(1) : `not completed (${state?.runtimeStatus ?? 'timeout'})`} | ${idleRss.toFixed(0)} → ${peakRss.toFixed(0)} | ` +
        `${((cpuMs(svcd.child.pid!) - cpu0) / 1000).toFixed(1)} | ${percentile(health, 50).toFixed(1)} / ${percentile(health, 99).toFixed(1)} / ${(health.at(-1) ?? 0).toFixed(1)} |`,
    );
  } finally {
    await client.stop();
    worker.kill('SIGTERM');
    await svcd.dispose();
    await store.cleanup();
  }
}

print(`# one workflow, fan-out of ${FANOUT} activities (real svcd + @dapr/durabletask-js worker)\n`);
for (const build of svcdBuilds) print(`build ${build.label}: ${build.main}`);
print('| actor store | build | activities | seconds to complete | svcd RSS MiB idle → peak | svcd CPU s | healthz ms p50 / p99 / max |');
print('|---|---|---:|---:|---:|---:|---:|');
for (const kind of (process.env.BENCH_STORES ?? 'sqlite,redis,postgresql').split(',') as ActorStoreKind[]) {
  for (let round = 0; round < ROUNDS; round++) for (const build of svcdBuilds) await benchStore(kind, build);
}
process.exit(0);
