/**
 * Replicas killed with `kill -9` at random under a steady workflow and pub/sub load, each brought back as its
 * Deployment would (a new svcd and a new worker process): every workflow whose start was acknowledged completes,
 * no activity result is recorded twice in any history, and every message whose publish was acknowledged reaches
 * the subscriber at least once. `make test` runs a few kills; the full soak is
 * `SOAK_KILLS=50 npx mocha --timeout 0 e2e/dist/test/replicas/kill-soak.test.js` (figures printed, see
 * docs/workflow-engine.md).
 */
import { expect } from 'chai';
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { componentYaml, memoryMiB, SubscriberApp, TEST_REDIS_HOST } from '@svc/runtime/test-support';
import { ReplicaSet } from './replica-set.js';

const KILLS = Number(process.env.SOAK_KILLS ?? 4);
const FAST = ['--placement-lease-ttl', '1500ms', '--placement-heartbeat-interval', '250ms'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `step` every `everyMs` until `stop` resolves; errors (a replica killed under the call) are counted, not thrown. */
async function steady(everyMs: number, stop: Promise<void>, step: (n: number) => Promise<void>): Promise<{ calls: number; failed: number }> {
  let done = false;
  // Ends with the kills, also when they fail (the test then fails with their error).
  void stop.finally(() => (done = true)).catch(() => undefined);
  const inFlight = new Set<Promise<void>>();
  let calls = 0;
  let failed = 0;
  while (!done) {
    const p = step(calls++).catch(() => void failed++);
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
    await sleep(everyMs);
  }
  await Promise.all(inFlight);
  return { calls, failed };
}

describe('replicas killed with kill -9 under workflow and pub/sub load', function () {
  this.timeout(Math.max(240_000, KILLS * 20_000));
  let set: ReplicaSet | undefined;
  let app: SubscriberApp | undefined;

  after(async () => {
    await set?.close();
    await app?.stop();
  });

  it(`${KILLS} random kills: 0 acknowledged workflows lost or recorded twice, every acknowledged message delivered`, async () => {
    const topic = `soak-${Date.now()}`;
    app = await SubscriberApp.start([{ pubsubname: 'pubsub', topic, route: '/msg' }]);
    const pubsub = componentYaml('pubsub', 'pubsub.redis', { redisHost: TEST_REDIS_HOST, processingTimeout: '3s', redeliverInterval: '1s' });
    set = await ReplicaSet.start({ store: 'redis', replicas: 3, args: [...FAST, '--app-port', String(app.port)], resources: { 'pubsub.yaml': pubsub } });
    const s = set;

    const started: string[] = [];
    const acked = new Set<number>();
    let kills = 0;
    const loadStarted = Date.now();
    const killing = (async () => {
      for (; kills < KILLS; kills++) {
        await sleep(1_000 + Math.random() * 1_500);
        const i = Math.floor(Math.random() * s.replicas.length);
        await s.kill(i);
        await sleep(500);
        await s.restart(i).catch((err: Error) => {
          throw new Error(`replica ${i} did not come back after kill ${kills + 1}: ${err.message}`);
        });
        if ((kills + 1) % 10 === 0) console.log(`      ${kills + 1} kills, ${started.length} workflows and ${acked.size} messages acknowledged so far`);
      }
    })();
    const [, workflows, publishes] = await Promise.all([
      killing,
      steady(150, killing, async (n) => {
        const id = `soak-${n}`;
        await s.start('steps', JSON.stringify({ count: 2 }), id);
        started.push(id);
      }),
      steady(40, killing, async (n) => {
        const res = await s.any().request('POST', `/v1.0/publish/pubsub/${topic}`, JSON.stringify({ n }), { 'content-type': 'application/json' });
        await res.arrayBuffer();
        if (res.status === 204) acked.add(n);
      }),
    ]);
    const loadEnded = Date.now();
    const views = await Promise.all(s.replicas.map((r) => s.placement(r).catch((err: Error) => err.message)));

    const client = new TaskHubGrpcClient(s.any().grpcAddress);
    try {
      const statuses: string[] = [];
      for (let i = 0; i < started.length; i += 50) {
        const batch = await Promise.all(started.slice(i, i + 50).map((id) => client.waitForOrchestrationCompletion(id, false, 120))).catch((err: unknown) => {
          // What each replica saw of the placement when the load ended, and its last warnings: why a wait failed.
          console.log(JSON.stringify(views.map((v) => (typeof v === 'string' ? v : { host: v.hostId, partitions: v.partitions.length, peers: v.peers.map((p) => p.hostId) }))));
          for (const r of s.replicas) console.log(r.output.split('\n').filter((l) => !l.includes('"level":"info"')).slice(-25).join('\n'));
          throw err;
        });
        statuses.push(...batch.map((st, j) => `${started[i + j]}:${st?.runtimeStatus}`));
      }
      expect(statuses.filter((st) => !st.endsWith(':1'))).to.deep.equal([]); // 1: COMPLETED
    } finally {
      await client.stop();
    }
    const workflowsDone = Date.now();
    for (const id of started) {
      await s.reports.seen('turn', (t) => t.instanceId === id && Object.keys(t.results).length === 2);
      for (const turn of s.reports.of('turn', id)) for (const [task, n] of Object.entries(turn.results)) expect(n, `${id} task ${task}`).to.equal(1);
    }

    const delivered = () => new Set(app!.deliveries.filter((d) => d.path === '/msg').map((d) => (d.body.data as { n: number }).n));
    const deadline = Date.now() + 60_000;
    while ([...acked].some((n) => !delivered().has(n)) && Date.now() < deadline) await sleep(200);
    const missing = [...acked].filter((n) => !delivered().has(n));
    expect(missing, 'acknowledged messages never delivered').to.deep.equal([]);
    const deliveries = app.deliveries.filter((d) => d.path === '/msg').length;

    const rss = s.replicas.map((r) => memoryMiB(r.child.pid!).toFixed(0));
    const reruns = s.reports.of('activity-start').length - started.length * 2;
    console.log(
      `      ${kills} kills in ${((loadEnded - loadStarted) / 1000).toFixed(0)}s of load: workflows ${started.length} acknowledged of ${workflows.calls} starts ` +
        `(${workflows.failed} refused by a dying replica), all COMPLETED ${((workflowsDone - loadEnded) / 1000).toFixed(1)} s after the load ended, ` +
        `${reruns} activity re-runs, 0 results recorded twice; messages ${acked.size} acknowledged of ${publishes.calls} (${publishes.failed} failed), ` +
        `all delivered (${deliveries - delivered().size} duplicates); replicas' RSS at the end ${rss.join(', ')} MiB`,
    );
  });
});
