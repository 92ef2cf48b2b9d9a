/**
 * Memory per waiting workflow: svcd (embedded SQLite) with the bench worker, BENCH_WAITING_FEW and then
 * BENCH_WAITING_MANY (default 2,000 and 6,000) instances of a workflow waiting on a one-hour timer, each in an svcd
 * of its own. Once all run, svcd is left idle past the workflow activations' idle timeout (60 s: a waiting
 * instance keeps only its reminder in memory), then writes a heap snapshot (which collects garbage first). Per
 * waiting workflow = the difference of live heap (compiled code left out) between the two counts ÷ the difference
 * of counts, so what every svcd holds anyway cancels out. RSS is printed beside it: it also holds what the heap
 * grew to while the instances started, which V8 and the allocator give back slowly.
 * Run: `npm run build && node bench/dist/src/waiting-memory.js` (about 4 minutes).
 */
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { actorStore, SvcdProcess, tempFolder } from '@svc/runtime/test-support';
import { rssMiB, startWorker } from './workflow-loop.js';

console.log = () => undefined; // the SDK client logs every start
const FEW = Number(process.env.BENCH_WAITING_FEW ?? 2000);
const MANY = Number(process.env.BENCH_WAITING_MANY ?? 6000);
const IDLE_MS = 75_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The live heap of a heap snapshot, the sum of its nodes' own sizes, without compiled code: how much code the JIT
 * compiled differs from one svcd to the next and is not per workflow.
 */
function liveHeapBytes(file: string): number {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[] };
  const { node_fields: fields, node_types: types } = snapshot.snapshot.meta;
  const type = fields.indexOf('type');
  const self = fields.indexOf('self_size');
  const code = types[0].indexOf('code');
  let total = 0;
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) if (snapshot.nodes[i + type] !== code) total += snapshot.nodes[i + self]!;
  return total;
}

/** The heap snapshot svcd writes into `folder`, once its size stopped growing (it is written as it is made). */
async function snapshotWritten(folder: string): Promise<string> {
  let last = -1;
  for (let waited = 0; waited < 120; waited++) {
    await sleep(1000);
    const name = readdirSync(folder).find((f) => f.endsWith('.heapsnapshot'));
    if (!name) continue;
    const size = statSync(path.join(folder, name)).size;
    if (size > 0 && size === last) return path.join(folder, name);
    last = size;
  }
  throw new Error('svcd wrote no complete heap snapshot within 120 s');
}

async function measure(instances: number): Promise<{ heap: number; rss: number }> {
  const snapshots = tempFolder('svc-bench-heap-');
  const store = actorStore('sqlite', 'bench-waiting');
  const svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, env: { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}` }, args: ['--log-level', 'warn'] });
  const worker = await startWorker(svcd.grpcAddress);
  const client = new TaskHubGrpcClient(svcd.grpcAddress);
  try {
    for (let i = 0; i < instances; i += 200) {
      await Promise.all(Array.from({ length: Math.min(200, instances - i) }, (_, j) => client.scheduleNewOrchestration('sleeper', 3_600_000, `waiting-${i + j}`)));
    }
    await client.waitForOrchestrationStart(`waiting-${instances - 1}`, false, 120);
    await sleep(IDLE_MS);
    svcd.child.kill('SIGUSR2');
    const file = await snapshotWritten(snapshots);
    return { heap: liveHeapBytes(file), rss: rssMiB(svcd.child.pid!) };
  } finally {
    worker.kill();
    await client.stop();
    await svcd.dispose();
  }
}

const few = await measure(FEW);
const many = await measure(MANY);
const perWorkflow = (many.heap - few.heap) / (MANY - FEW);
process.stdout.write('svcd (embedded SQLite), workflows waiting on a one-hour timer, idle for 75 s\n');
process.stdout.write('| waiting | live heap MiB | RSS MiB |\n|---:|---:|---:|\n');
for (const [n, m] of [[FEW, few], [MANY, many]] as const) process.stdout.write(`| ${n} | ${(m.heap / 1048576).toFixed(1)} | ${m.rss.toFixed(0)} |\n`);
process.stdout.write(`live heap per waiting workflow: ${perWorkflow.toFixed(0)} bytes\n`);
