/**
 * At-least-once across a crash: svcd killed (SIGKILL) while messages it took from the broker are with the app and
 * others wait in the broker; the restarted svcd delivers every one of them — on Redis its own pending entries
 * first, on JetStream what was unacknowledged once `ackWait` passed, on SQLite every message its group has not
 * acknowledged.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { SubscriberApp, SvcdProcess, componentYaml, deleteJetStreamStream, deleteRedisKeysWithPrefix, TEST_NATS_URL, TEST_REDIS_HOST } from '../support/index.js';

interface Broker {
  readonly label: string;
  readonly component: (topic: string) => string;
  readonly cleanup: (topic: string) => Promise<void>;
}

const BROKERS: Broker[] = [
  {
    // Its file is in svcd's data folder, which the restarted svcd reuses (and the test removes).
    label: 'SQLite (embedded)',
    component: () => componentYaml('pubsub', 'pubsub.sqlite'),
    cleanup: () => Promise.resolve(),
  },
  {
    label: 'Redis',
    component: () => componentYaml('pubsub', 'pubsub.redis', { redisHost: TEST_REDIS_HOST, processingTimeout: '60s' }),
    cleanup: (topic) => deleteRedisKeysWithPrefix(topic),
  },
  {
    label: 'NATS JetStream',
    component: (topic) => componentYaml('pubsub', 'pubsub.jetstream', { natsURL: TEST_NATS_URL, streamName: topic, ackWait: '2s' }),
    cleanup: (topic) => deleteJetStreamStream(topic),
  },
];

for (const broker of BROKERS) {
  describe(`pub/sub on ${broker.label}: no acknowledged message lost when svcd is killed mid-delivery`, function () {
    this.timeout(60_000);
    const topic = `crash-${randomUUID().slice(0, 8)}`;
    after(() => broker.cleanup(topic));

    it('delivers every published message after SIGKILL and a restart', async () => {
      const app = await SubscriberApp.start([{ pubsubname: 'pubsub', topic, route: '/work', metadata: { concurrency: '5' } }]);
      app.answers.set('/work', [{ status: 200, delayMs: 60_000 }]); // holds every delivery: they are in flight at the kill
      const first = await SvcdProcess.start({ resources: { 'pubsub.yaml': broker.component(topic) }, args: ['--app-port', String(app.port)] });
      let second: SvcdProcess | undefined;
      try {
        for (let i = 0; i < 40; i++) expect((await first.request('POST', `/v1.0/publish/pubsub/${topic}`, { i })).status).to.equal(204);
        await app.waitFor('/work', 5);
        await first.kill();
        expect((await first.exited).signal).to.equal('SIGKILL');
        const heldAtKill = new Set(app.to('/work').map((d) => (d.body.data as { i: number }).i));

        app.answers.set('/work', [{ status: 200 }]);
        second = await SvcdProcess.start({ resourcesPath: first.resourcesPath, dataDir: first.dataDir, args: ['--app-port', String(app.port)] });
        await app.waitFor('/work', 40 + heldAtKill.size, 20_000);
        const delivered = new Set(app.to('/work').map((d) => (d.body.data as { i: number }).i));
        expect(delivered.size).to.equal(40);
        const again = app.to('/work').slice(heldAtKill.size).map((d) => (d.body.data as { i: number }).i);
        for (const i of heldAtKill) expect(again, `message ${i}, in flight at the kill, delivered again`).to.include(i);
      } finally {
        await second?.dispose();
        await first.dispose();
        await app.stop();
      }
    });
  });
}
