/**
 * A topic with a backlog of 100,000 messages (Redis Streams) meets a subscriber that starts only now: how long svcd
 * takes to drain it to a real app, svcd's peak RSS and CPU per message meanwhile (from /proc), and how long messages
 * published to another topic of the same app wait while the backlog drains (they must not queue behind it).
 * Run: `npm run build && node bench/dist/src/pubsub-backlog.js` (BENCH_BACKLOG, default 100000).
 */
import { randomUUID } from 'node:crypto';
import { SubscriberApp, SvcdProcess, TEST_REDIS_HOST, componentYaml, deleteRedisKeysWithPrefix } from '@svc/runtime/test-support';
import { cpuMs, percentile, rssMiB } from './workflow-loop.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 100_000);
const BULK = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const prefix = `backlog-${randomUUID().slice(0, 8)}`;
const topic = `${prefix}-big`;
const other = `${prefix}-other`;
const pubsub = componentYaml('pubsub', 'pubsub.redis', { redisHost: TEST_REDIS_HOST });

// 1. The backlog, published by another app before the subscriber exists (bulk requests of 1,000, 4 at a time).
const publisher = await SvcdProcess.start({ appId: `${prefix}-publisher`, resources: { 'pubsub.yaml': pubsub }, args: ['--log-level', 'warn'] });
const tp = performance.now();
let nextBulk = 0;
await Promise.all(
  Array.from({ length: 4 }, async () => {
    for (let b = nextBulk++; b * BULK < BACKLOG; b = nextBulk++) {
      const entries = Array.from({ length: Math.min(BULK, BACKLOG - b * BULK) }, (_, i) => ({ entryId: String(i), event: { n: b * BULK + i }, contentType: 'application/json' }));
      const res = await publisher.request('POST', `/v1.0-alpha1/publish/bulk/pubsub/${topic}`, entries);
      if (res.status !== 204) throw new Error(`bulk publish answered ${res.status}: ${await res.text()}`);
    }
  }),
);
print(`backlog: ${BACKLOG} messages published in ${((performance.now() - tp) / 1000).toFixed(1)} s`);

// 2. The subscriber app and its svcd start; the backlog drains while another topic gets one message every 50 ms.
const app = await SubscriberApp.start([
  { pubsubname: 'pubsub', topic, route: '/big' },
  { pubsubname: 'pubsub', topic: other, route: '/other' },
]);
const svcd = await SvcdProcess.start({ appId: `${prefix}-subscriber`, resources: { 'pubsub.yaml': pubsub }, args: ['--app-port', String(app.port), '--log-level', 'warn'] });
const pid = svcd.child.pid!;
const t0 = performance.now();
const cpu0 = cpuMs(pid);
let peak = rssMiB(pid);
const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 100);
const sentAt = new Map<number, number>();
let n = 0;
const bigDelivered = () => new Set(app.to('/big').map((d) => (d.body.data as { n: number }).n)).size;
while (bigDelivered() < BACKLOG) {
  if (performance.now() - t0 > 600_000) throw new Error(`only ${bigDelivered()} of ${BACKLOG} delivered within 10 minutes`);
  sentAt.set(n, performance.timeOrigin + performance.now());
  const res = await publisher.request('POST', `/v1.0/publish/pubsub/${other}`, { n: n++ });
  await res.arrayBuffer();
  await sleep(50);
}
const drainedS = (performance.now() - t0) / 1000;
const cpu = cpuMs(pid) - cpu0;
clearInterval(sampler);
await sleep(500);
const waits = app
  .to('/other')
  .map((d) => d.receivedAt - (sentAt.get((d.body.data as { n: number }).n) ?? d.receivedAt))
  .sort((a, b) => a - b);

print(`drain: ${BACKLOG} messages delivered in ${drainedS.toFixed(1)} s (${(BACKLOG / drainedS).toFixed(0)}/s), ${app.to('/big').length - BACKLOG} duplicates`);
print(`svcd (subscriber): peak RSS ${peak.toFixed(0)} MiB, CPU ${(cpu / BACKLOG).toFixed(3)} ms per message`);
print(`other topic meanwhile: ${waits.length} messages, publish-to-delivery p50 ${percentile(waits, 50).toFixed(0)} ms, p99 ${percentile(waits, 99).toFixed(0)} ms, max ${(waits.at(-1) ?? 0).toFixed(0)} ms`);

await svcd.dispose();
await publisher.dispose();
await app.stop();
await deleteRedisKeysWithPrefix(prefix);
