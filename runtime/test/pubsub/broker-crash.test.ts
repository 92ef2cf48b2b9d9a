/**
 * At-least-once across a crash: svcd killed (SIGKILL) while messages it took from Redis are with the app and
 * others wait in the stream; the restarted svcd delivers every one of them (its own pending entries first).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { SubscriberApp, SvcdProcess, componentYaml, deleteRedisKeysWithPrefix, TEST_REDIS_HOST } from '../support/index.js';

describe('pub/sub on Redis: no acknowledged message lost when svcd is killed mid-delivery', function () {
  this.timeout(60_000);
  const topic = `crash-${randomUUID().slice(0, 8)}`;
  after(() => deleteRedisKeysWithPrefix(topic));

  it('delivers every published message after SIGKILL and a restart', async () => {
    const app = await SubscriberApp.start([{ pubsubname: 'pubsub', topic, route: '/work', metadata: { concurrency: '5' } }]);
    app.answers.set('/work', [{ status: 200, delayMs: 60_000 }]); // holds every delivery: they are in flight at the kill
    const resources = { 'pubsub.yaml': componentYaml('pubsub', 'pubsub.redis', { redisHost: TEST_REDIS_HOST, processingTimeout: '60s' }) };
    const first = await SvcdProcess.start({ resources, args: ['--app-port', String(app.port)] });
    let second: SvcdProcess | undefined;
    try {
      for (let i = 0; i < 40; i++) expect((await first.request('POST', `/v1.0/publish/pubsub/${topic}`, { i })).status).to.equal(204);
      await app.waitFor('/work', 5);
      await first.kill();
      expect((await first.exited).signal).to.equal('SIGKILL');
      const heldAtKill = new Set(app.to('/work').map((d) => (d.body.data as { i: number }).i));

      app.answers.set('/work', [{ status: 200 }]);
      second = await SvcdProcess.start({ resourcesPath: first.resourcesPath, dataDir: first.dataDir, args: ['--app-port', String(app.port)] });
      // The restarted consumer (same name) reads its own pending entries at once: no wait for processingTimeout.
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
