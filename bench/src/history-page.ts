/**
 * A history page of a huge instance: one workflow fans out to BENCH_FANOUT activities (default 100,000: 200,000
 * history events) and then waits for an event, RUNNING, on each actor store. Then svcd is restarted on the same
 * data, once per round and build (BENCH_SVCD_MAINS: comma-separated svcd launchers, e.g. another checkout's
 * `runtime/bin/svcd.js`, run in turn A B A B on the same store: interleaved), and times `GET …/history`:
 *  - the first page read after the restart (nothing of the instance in memory),
 *  - BENCH_PAGE_REPEAT more (default 30) before anything else read the instance,
 *  - the same once the waiting view loaded the instance into memory (active),
 * each for the default page (500) and pageSize=100, both from the middle of the history (token 100,000 for the
 * default fan-out). Prints ms p50 / p99 / max, svcd's CPU ms per call from /proc and its RSS after the round.
 * Run: `npm run build && node bench/dist/src/history-page.js` (BENCH_STORES=sqlite,redis,postgresql,
 * BENCH_ROUNDS=3).
 */
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { actorStore, SvcdProcess, type ActorStoreKind } from '@svc/runtime/test-support';
import { percentile, rssMiB, startWorker, svcdBuilds, timedCalls } from './workflow-loop.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
console.log = () => undefined;
console.info = () => undefined;

const FANOUT = Number(process.env.BENCH_FANOUT ?? 100_000);
const REPEAT = Number(process.env.BENCH_PAGE_REPEAT ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const STORES = (process.env.BENCH_STORES ?? 'sqlite,redis,postgresql').split(',') as ActorStoreKind[];
const INSTANCE = `history-${FANOUT}`;
const MIDDLE = FANOUT;

/** Builds the instance and leaves it RUNNING (waiting for an event) with 2 × FANOUT + a few events. */
async function buildInstance(svcd: SvcdProcess): Promise<number> {
  const worker = await startWorker(svcd.grpcAddress);
  const client = new TaskHubGrpcClient(svcd.grpcAddress);
  const t0 = performance.now();
  try {
    await client.scheduleNewOrchestration('bigFanoutThenWait', FANOUT, INSTANCE);
    for (;;) {
      const state = await client.getOrchestrationState(INSTANCE, true);
      if (state?.serializedCustomStatus === 'fanned-in') break;
      if (performance.now() - t0 > 1_200_000) throw new Error(`the fan-out did not finish in 20 minutes (${state?.runtimeStatus})`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    return (performance.now() - t0) / 1000;
  } finally {
    await client.stop();
    worker.kill('SIGTERM');
  }
}

async function page(svcd: SvcdProcess, query: string): Promise<void> {
  const res = await svcd.request('GET', `/v1.0/workflows/svc/${INSTANCE}/history?${query}`);
  if (res.status !== 200) throw new Error(`history ${query}: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { events: { index: number }[] };
  if (body.events[0]?.index !== MIDDLE) throw new Error(`history ${query}: the page starts at ${body.events[0]?.index}`);
}

const cell = ({ ms, cpuMsPerCall }: { ms: number[]; cpuMsPerCall: number }) =>
  `${percentile(ms, 50).toFixed(1)} / ${percentile(ms, 99).toFixed(1)} / ${(ms.at(-1) ?? 0).toFixed(1)} | ${cpuMsPerCall.toFixed(1)}`;

async function benchStore(kind: ActorStoreKind): Promise<void> {
  const store = actorStore(kind, 'bench-history');
  // The one worker replays 2 × FANOUT events in its last turn: on a busy machine that exceeds the default task
  // timeout (10 s), and a worker found unresponsive with no other worker leaves the fan-in unrecorded.
  const first = await SvcdProcess.start({ appId: store.appId, resources: store.resources, svcdMain: svcdBuilds[0]!.main, args: ['--log-level', 'warn', '--workflow-task-timeout', '10m'] });
  let last = first;
  try {
    const seconds = await buildInstance(first);
    print(`| ${kind} | (built: ${2 * FANOUT}-event history, fan-out then waiting, in ${seconds.toFixed(0)} s) | | | | |`);
    await first.stop();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const build of svcdBuilds) {
        const svcd = await SvcdProcess.start({ appId: store.appId, resourcesPath: first.resourcesPath, dataDir: first.dataDir, svcdMain: build.main, args: ['--log-level', 'warn'] });
        last = svcd;
        const row = (what: string, m: { ms: number[]; cpuMsPerCall: number }) => print(`| ${kind} | ${round} | ${build.label} | ${what} | ${cell(m)} |`);
        try {
          row('after restart: first call, 500', await timedCalls(svcd.child.pid!, 1, () => page(svcd, `continuationToken=${MIDDLE}`)));
          row('after restart: 500', await timedCalls(svcd.child.pid!, REPEAT, () => page(svcd, `continuationToken=${MIDDLE}`)));
          row('after restart: 100', await timedCalls(svcd.child.pid!, REPEAT, () => page(svcd, `pageSize=100&continuationToken=${MIDDLE}`)));
          const waiting = await svcd.request('GET', `/v1.0/workflows/svc/${INSTANCE}/waiting`);
          if (waiting.status !== 200) throw new Error(`waiting: ${waiting.status}`);
          row('active in memory: 500', await timedCalls(svcd.child.pid!, REPEAT, () => page(svcd, `continuationToken=${MIDDLE}`)));
          row('active in memory: 100', await timedCalls(svcd.child.pid!, REPEAT, () => page(svcd, `pageSize=100&continuationToken=${MIDDLE}`)));
          print(`| ${kind} | ${round} | ${build.label} | svcd RSS after the round | ${rssMiB(svcd.child.pid!).toFixed(0)} MiB | |`);
        } finally {
          await svcd.stop();
        }
      }
    }
  } finally {
    await last.dispose(); // a restarted svcd took over the first one's folders
    await store.cleanup();
  }
}

print(`# a history page of one RUNNING instance with ${2 * FANOUT} events, page from index ${MIDDLE}`);
for (const build of svcdBuilds) print(`build ${build.label}: ${build.main}`);
print('| store | round | build | call | ms p50 / p99 / max | svcd CPU ms per call |');
print('|---|---|---|---|---|---|');
for (const kind of STORES) await benchStore(kind);
process.exit(0);
