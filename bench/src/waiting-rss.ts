/**
 * svcd's memory over time while BENCH_INSTANCES (default 100,000) workflow instances wait for a worker that never
 * connects: started over gRPC 64 at a time (embedded SQLite), then every 25 s for BENCH_WAIT_S (default 200) svcd's
 * RSS (/proc), its V8 heap used and committed, old space and memory outside the heap (its own metrics,
 * `svc_nodejs_*`) and its CPU over the interval. Shows what the instances keep once the starts' garbage is collected
 * (the activations' idle timeout is 60 s), and whether svcd stays quiet meanwhile. With BENCH_DRAIN=1 a worker
 * then connects and runs them all (five activities each): how long that takes, svcd's CPU per workflow and its
 * peak RSS meanwhile. BENCH_SVCD_MAINS runs several builds in turn. Run: `npm run build && node
 * bench/dist/src/waiting-rss.js` (about 5 minutes per build, 7 with the drain).
 */
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { actorStore, SvcdProcess } from '@svc/runtime/test-support';
import { cpuMs, inParallel, rssMiB, startWorker, svcdBuilds } from './workflow-loop.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
console.log = () => undefined; // the SDK client logs every start
const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 100_000);
const WAIT_S = Number(process.env.BENCH_WAIT_S ?? 200);
const DRAIN = process.env.BENCH_DRAIN === '1';
const SAMPLE_S = 25;
const METRICS_PORT = 19_099;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One gauge of svcd's metrics (its labels filtered by `labels`), in MiB. */
function gaugeMiB(metrics: string, name: string, labels = ''): string {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? '?' : (Number(line.slice(line.lastIndexOf(' ') + 1)) / 1048576).toFixed(0);
}

/** Workflows svcd completed (every status), from its metrics. */
async function completed(): Promise<number> {
  const metrics = await (await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`)).text();
  return metrics
    .split('\n')
    .filter((l) => l.startsWith('svc_workflow_instances_completed_total{'))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/** A worker connects and runs every waiting instance: time to the last completion, svcd's CPU and peak RSS. */
async function drain(label: string, pid: number, grpcAddress: string): Promise<void> {
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  const worker = await startWorker(grpcAddress);
  let peak = 0;
  try {
    while ((await completed()) < INSTANCES) {
      peak = Math.max(peak, rssMiB(pid));
      await sleep(1000);
    }
  } finally {
    worker.kill('SIGTERM');
  }
  const s = (performance.now() - t0) / 1000;
  print(`| ${label} | drained by a worker in ${s.toFixed(1)} s (${(INSTANCES / s).toFixed(0)} workflows/s, svcd ${((cpuMs(pid) - cpu0) / INSTANCES).toFixed(2)} ms CPU each) | peak ${peak.toFixed(0)} | | | | |`);
}

async function measure(build: (typeof svcdBuilds)[number]): Promise<void> {
  const store = actorStore('sqlite', 'bench-waiting-rss');
  const svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, svcdMain: build.main, args: ['--log-level', 'warn', '--metrics-port', String(METRICS_PORT)] });
  const client = new TaskHubGrpcClient(svcd.grpcAddress);
  const pid = svcd.child.pid!;
  try {
    const idle = rssMiB(pid);
    await inParallel(INSTANCES, 64, (i) => client.scheduleNewOrchestration('sequence', { n: i }, `inst-${String(i).padStart(6, '0')}`));
    print(`| ${build.label} | after the starts (idle ${idle.toFixed(0)}) | ${rssMiB(pid).toFixed(0)} | | | | |`);
    for (let t = SAMPLE_S; t <= WAIT_S; t += SAMPLE_S) {
      const cpu0 = cpuMs(pid);
      await sleep(SAMPLE_S * 1000);
      const cpuPerSecond = (cpuMs(pid) - cpu0) / SAMPLE_S;
      const metrics = await (await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`)).text();
      const heap = `${gaugeMiB(metrics, 'svc_nodejs_heap_size_used_bytes')} / ${gaugeMiB(metrics, 'svc_nodejs_heap_size_total_bytes')}`;
      const old = `${gaugeMiB(metrics, 'svc_nodejs_heap_space_size_used_bytes', 'space="old"')} / ${gaugeMiB(metrics, 'svc_nodejs_heap_space_size_total_bytes', 'space="old"')}`;
      print(`| ${build.label} | t + ${t} s | ${rssMiB(pid).toFixed(0)} | ${heap} | ${old} | ${gaugeMiB(metrics, 'svc_nodejs_external_memory_bytes')} | ${cpuPerSecond.toFixed(0)} |`);
    }
    if (DRAIN) await drain(build.label, pid, svcd.grpcAddress);
  } finally {
    await client.stop();
    await svcd.dispose();
    await store.cleanup();
  }
}

print(`svcd (embedded SQLite) with ${INSTANCES} instances waiting for a worker, sampled every ${SAMPLE_S} s`);
for (const build of svcdBuilds) print(`build ${build.label}: ${build.main}`);
print('| build | when | RSS MiB | heap used / committed MiB | old space used / committed MiB | external MiB | svcd CPU ms/s |');
print('|---|---|---:|---:|---:|---:|---:|');
for (const build of svcdBuilds) await measure(build);
process.exit(0);
