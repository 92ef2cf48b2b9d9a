/**
 * The workflow list (`GET /v1.0/workflows/svc`) at scale: BENCH_INSTANCES (default 100,000) instances started on
 * each actor store with the SDK client, scheduled a day ahead (PENDING, each with its index entries, nothing due:
 * the store holds 100,000 instances and svcd is otherwise idle), then the latency of list calls, unfiltered and
 * filtered, and of paging deep into the list. Prints per store and call: p50 / p99 / max
 * over BENCH_LIST_REPEAT calls (default 30), and svcd's CPU per call from /proc.
 * BENCH_LIST_START=now starts them at once instead, with no worker connected: every instance waits for a worker
 * (its first batch held by its id alone in svcd: dormant-batches.ts) while the list is timed; svcd's RSS is
 * printed idle, after the starts, and after BENCH_LIST_SETTLE_S (default 75: past the activations' idle timeout)
 * with the list timed again.
 * svcd's CPU while the instances wait is printed too. BENCH_SVCD_MAINS (comma-separated svcd launchers, e.g. another
 * checkout's `runtime/bin/svcd.js`) runs each build in turn per store.
 * Run: `npm run build && node bench/dist/src/list-instances.js` (BENCH_STORES=sqlite,redis,postgresql).
 */
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { actorStore, SvcdProcess, type ActorStoreKind } from '@svc/runtime/test-support';
import { cpuMs, inParallel, percentile, rssMiB, svcdBuilds, timedCalls } from './workflow-loop.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
// The SDK client logs every start.
console.log = () => undefined;
console.info = () => undefined;
const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 100_000);
const REPEAT = Number(process.env.BENCH_LIST_REPEAT ?? 30);
const STORES = (process.env.BENCH_STORES ?? 'sqlite,redis,postgresql').split(',') as ActorStoreKind[];
const START_CONCURRENCY = 64;
const START_NOW = process.env.BENCH_LIST_START === 'now';
const SETTLE_S = Number(process.env.BENCH_LIST_SETTLE_S ?? 75);
/** One instance in 100 is a `refund`: a name filter that matches 1%. */
const nameOf = (i: number) => (i % 100 === 0 ? 'refund' : 'order');

async function startAll(svcd: SvcdProcess): Promise<number> {
  const client = new TaskHubGrpcClient(svcd.grpcAddress);
  const later = START_NOW ? undefined : new Date(Date.now() + 86_400_000);
  const t0 = performance.now();
  try {
    await inParallel(INSTANCES, START_CONCURRENCY, (i) => client.scheduleNewOrchestration(nameOf(i), { n: i }, `inst-${String(i).padStart(6, '0')}`, later));
  } finally {
    await client.stop();
  }
  return INSTANCES / ((performance.now() - t0) / 1000);
}

async function list(svcd: SvcdProcess, query: string): Promise<{ instances: unknown[]; continuationToken: string | null }> {
  const res = await svcd.request('GET', `/v1.0/workflows/svc?${query}`);
  if (res.status !== 200) throw new Error(`list ${query}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { instances: unknown[]; continuationToken: string | null };
}

async function benchStore(kind: ActorStoreKind, build: (typeof svcdBuilds)[number]): Promise<void> {
  const store = actorStore(kind, 'bench-list');
  const svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, svcdMain: build.main, args: ['--log-level', 'warn'] });
  const row = svcdBuilds.length > 1 ? `${kind} (${build.label})` : kind;
  try {
    const idleRss = rssMiB(svcd.child.pid!);
    const startsPerSecond = await startAll(svcd);
    // The token of page 100 (pageSize 50): where a deep page starts.
    let deep: string | null = null;
    for (let page = 0; page < 100; page++) deep = (await list(svcd, `pageSize=50${deep !== null ? `&continuationToken=${deep}` : ''}`)).continuationToken;
    const cases: [string, () => Promise<unknown>][] = [
      ['first page of 50, no filter', () => list(svcd, 'pageSize=50')],
      ['page 101 of 50 (after 5,000)', () => list(svcd, `pageSize=50&continuationToken=${deep!}`)],
      ['first page of 1,000', () => list(svcd, 'pageSize=1000')],
      ['name=refund (1% match), 50', () => list(svcd, 'name=refund&pageSize=50')],
      ['status=COMPLETED (no match): one call', () => list(svcd, 'status=COMPLETED&pageSize=50')],
      ['ID prefix inst-0999 (100 match, newest), 50', () => list(svcd, 'instanceIDPrefix=inst-0999&pageSize=50')],
    ];
    const timeAll = async (when: string) => {
      for (const [name, call] of cases) {
        const { ms, cpuMsPerCall } = await timedCalls(svcd.child.pid!, REPEAT, call);
        print(`| ${row} | ${INSTANCES} | ${when}${name} | ${percentile(ms, 50).toFixed(1)} / ${percentile(ms, 99).toFixed(1)} / ${(ms.at(-1) ?? 0).toFixed(1)} | ${cpuMsPerCall.toFixed(1)} |`);
      }
    };
    await timeAll('');
    if (START_NOW) {
      print(`| ${row} | ${INSTANCES} | svcd RSS idle → after the starts and list calls | ${idleRss.toFixed(0)} → ${rssMiB(svcd.child.pid!).toFixed(0)} MiB | |`);
      const cpu0 = cpuMs(svcd.child.pid!);
      await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
      const waitingCpu = (cpuMs(svcd.child.pid!) - cpu0) / SETTLE_S;
      print(`| ${row} | ${INSTANCES} | svcd RSS after ${SETTLE_S} s more waiting; its CPU meanwhile | ${rssMiB(svcd.child.pid!).toFixed(0)} MiB; ${waitingCpu.toFixed(0)} ms/s | |`);
      await timeAll(`after ${SETTLE_S} s: `);
    }
    print(`| ${row} | ${INSTANCES} | (${START_NOW ? 'starts, no worker' : 'scheduled starts'} over gRPC, 64 at a time) | ${startsPerSecond.toFixed(0)} starts/s | |`);
  } finally {
    await svcd.dispose();
    await store.cleanup();
  }
}

print(`workflow list latency, ${INSTANCES} instances per store (${START_NOW ? 'waiting for a worker' : 'scheduled a day ahead'}), ${REPEAT} calls per row`);
print('| store | instances | call | ms p50 / p99 / max | svcd CPU ms per call |');
print('|---|---|---|---|---|');
for (const build of svcdBuilds) print(`build ${build.label}: ${build.main}`);
for (const kind of STORES) for (const build of svcdBuilds) await benchStore(kind, build);
process.exit(0);
