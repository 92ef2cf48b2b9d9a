/**
 * Publish-to-delivery through svcd: publishers POST to `/v1.0/publish/…` as fast as svcd answers, a real app
 * receives the deliveries over HTTP. Per pub/sub (Redis Streams, NATS JetStream, the example pluggable component,
 * in-memory, the embedded SQLite) and
 * per publisher count (1 and 64): messages delivered per second, publish-to-delivery latency p50/p99 (the app's
 * receive time minus the publisher's send time, same machine clock), and svcd's CPU per message from /proc.
 * Run: `npm run build && node bench/dist/src/pubsub.js` (BENCH_PUBSUB_MESSAGES, default 5000 per cell).
 */
import { randomUUID } from 'node:crypto';
import {
  ExampleComponent,
  SubscriberApp,
  SvcdProcess,
  TEST_NATS_URL,
  TEST_REDIS_HOST,
  componentYaml,
  deleteJetStreamStream,
  deleteRedisKeysWithPrefix,
  tempSocketsFolder,
} from '@svc/runtime/test-support';
import { cpuMs, percentile } from './workflow-loop.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
const MESSAGES = Number(process.env.BENCH_PUBSUB_MESSAGES ?? 5000);

interface Target {
  readonly label: string;
  readonly component: (topicPrefix: string) => string;
  readonly setUp?: () => Promise<{ socketsFolder: string; stop: () => Promise<void> }>;
  /** Removes what the cell left in a shared server. */
  readonly cleanup?: (topic: string) => Promise<void>;
}

const TARGETS: Target[] = [
  { label: 'pubsub.redis', component: () => componentYaml('pubsub', 'pubsub.redis', { redisHost: TEST_REDIS_HOST }), cleanup: deleteRedisKeysWithPrefix },
  { label: 'pubsub.jetstream', component: (topic) => componentYaml('pubsub', 'pubsub.jetstream', { natsURL: TEST_NATS_URL, streamName: topic }), cleanup: deleteJetStreamStream },
  {
    label: 'pluggable (example component)',
    component: () => componentYaml('pubsub', 'pubsub.memstore'),
    setUp: async () => {
      const folder = tempSocketsFolder();
      const c = await ExampleComponent.start({ folder, name: 'memstore' });
      return { socketsFolder: folder, stop: () => c.stop() };
    },
  },
  { label: 'pubsub.in-memory', component: () => componentYaml('pubsub', 'pubsub.in-memory') },
  // The embedded default: its file is in the cell's svcd data folder, removed with it.
  { label: 'pubsub.sqlite', component: () => componentYaml('pubsub', 'pubsub.sqlite') },
];

async function cell(target: Target, publishers: number): Promise<void> {
  const topic = `bench-${randomUUID().slice(0, 8)}`;
  const app = await SubscriberApp.start([{ pubsubname: 'pubsub', topic, route: '/in', metadata: { concurrency: '64' } }]);
  const extra = await target.setUp?.();
  const svcd = await SvcdProcess.start({
    resources: { 'pubsub.yaml': target.component(topic) },
    args: ['--app-port', String(app.port), '--log-level', 'warn'],
    ...(extra ? { socketsFolder: extra.socketsFolder } : {}),
  });
  try {
    const cpu0 = cpuMs(svcd.child.pid!);
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: publishers }, async () => {
        while (next < MESSAGES) {
          next++;
          const res = await svcd.request('POST', `/v1.0/publish/pubsub/${topic}`, { sentAt: performance.timeOrigin + performance.now() });
          if (res.status !== 204) throw new Error(`publish answered ${res.status}: ${await res.text()}`);
        }
      }),
    );
    await app.waitFor('/in', MESSAGES, 120_000);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuMs(svcd.child.pid!) - cpu0;
    const latencies = app
      .to('/in')
      .map((d) => d.receivedAt - (d.body.data as { sentAt: number }).sentAt)
      .sort((a, b) => a - b);
    print(
      `| ${target.label} | ${publishers} | ${(MESSAGES / seconds).toFixed(0)} | ${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} | ${((cpu * 1000) / MESSAGES).toFixed(0)} |`,
    );
  } finally {
    await svcd.dispose();
    await app.stop();
    await extra?.stop();
    await target.cleanup?.(topic);
  }
}

print(`# publish → delivery through svcd, ${MESSAGES} messages per cell (real svcd, real HTTP app)\n`);
print('| pub/sub | publishers | delivered msg/s | publish→delivery ms p50 / p99 | svcd CPU µs per message |');
print('|---|---:|---:|---:|---:|');
for (const target of TARGETS) for (const publishers of [1, 64]) await cell(target, publishers);
process.exit(0);
