/**
 * A broker that goes away and comes back, under a real svcd and app: while it is down a publish answers
 * 500 ERR_PUBSUB_PUBLISH_MESSAGE (nothing claims success) and /v1.0/healthz/outbound names the component; once it
 * is back, publishing works again and the subscription delivers again without restarting svcd.
 */
import { expect } from 'chai';
import { componentYaml, eventually, freePort, PrivateNatsServer, PrivateRedisServer, removeTempFolder, SubscriberApp, SvcdProcess, tempFolder } from '../support/index.js';
import type { TestChildProcess } from '../support/child-process.js';

interface Broker {
  readonly label: string;
  readonly component: (port: number) => string;
  /** Starts the server (again) on `port`; a restarted JetStream keeps its store, a restarted Redis starts empty. */
  readonly start: (port: number, dir: string) => Promise<TestChildProcess>;
  /** Keeps what it took across its own restart (so a kill mid-delivery may lose nothing). */
  readonly durable: boolean;
}

const BROKERS: Broker[] = [
  {
    label: 'NATS JetStream',
    component: (port) => componentYaml('pubsub', 'pubsub.jetstream', { natsURL: `nats://127.0.0.1:${port}`, ackWait: '2s' }),
    start: (port, dir) => PrivateNatsServer.start(port, dir),
    durable: true,
  },
  {
    label: 'Redis Streams',
    component: (port) => componentYaml('pubsub', 'pubsub.redis', { redisHost: `127.0.0.1:${port}`, processingTimeout: '2s', redeliverInterval: '500ms' }),
    start: (port) => PrivateRedisServer.start(port),
    durable: false,
  },
];

for (const broker of BROKERS) {
  describe(`pub/sub on ${broker.label}: the broker goes away and comes back`, function () {
    this.timeout(90_000);

    it('refuses publishes while it is down and delivers again once it is back, svcd still running', async () => {
      const port = await freePort();
      const dir = tempFolder('svc-broker-');
      let server = await broker.start(port, dir);
      const app = await SubscriberApp.start([{ pubsubname: 'pubsub', topic: 'orders', route: '/orders' }]);
      const svcd = await SvcdProcess.start({ resources: { 'pubsub.yaml': broker.component(port) }, args: ['--app-port', String(app.port)] });
      const publish = (n: number) => svcd.request('POST', '/v1.0/publish/pubsub/orders', { n });
      try {
        expect((await publish(1)).status).to.equal(204);
        await app.waitFor('/orders');

        await server.kill();
        const refused = await publish(2);
        const body = (await refused.json()) as { errorCode: string; message: string };
        expect([refused.status, body.errorCode], body.message).to.deep.equal([500, 'ERR_PUBSUB_PUBLISH_MESSAGE']);
        const outbound = await svcd.request('GET', '/v1.0/healthz/outbound');
        expect(outbound.status).to.equal(500);
        expect(await outbound.text()).to.contain('pubsub');

        server = await broker.start(port, dir);
        await eventually('publishing works again', async () => (await publish(3)).status === 204, 30_000);
        await eventually('the subscription delivers again', () => Promise.resolve(app.to('/orders').some((d) => (d.body.data as { n: number }).n === 3)), 30_000);
        expect((await svcd.request('GET', '/v1.0/healthz')).status).to.equal(204);
      } finally {
        await svcd.dispose();
        await app.stop();
        await server.kill();
        removeTempFolder(dir);
      }
    });

    if (broker.durable) {
      it('killed mid-delivery (SIGKILL) and started again: every message it acknowledged is delivered', async () => {
        const port = await freePort();
        const dir = tempFolder('svc-broker-');
        let server = await broker.start(port, dir);
        const app = await SubscriberApp.start([{ pubsubname: 'pubsub', topic: 'orders', route: '/orders' }]);
        app.answers.set('/orders', [{ status: 200, body: { status: 'SUCCESS' }, delayMs: 200 }]); // deliveries stay in flight
        const svcd = await SvcdProcess.start({ resources: { 'pubsub.yaml': broker.component(port) }, args: ['--app-port', String(app.port)] });
        try {
          const acked: number[] = [];
          for (let n = 0; n < 40; n++) if ((await svcd.request('POST', '/v1.0/publish/pubsub/orders', { n })).status === 204) acked.push(n);
          expect(acked).to.have.length(40);
          await app.waitFor('/orders', 3);
          await server.kill();
          await new Promise((r) => setTimeout(r, 1_000));
          server = await broker.start(port, dir);
          const delivered = () => new Set(app.to('/orders').map((d) => (d.body.data as { n: number }).n));
          await eventually('every acknowledged message delivered', () => Promise.resolve(acked.every((n) => delivered().has(n))), 60_000);
          expect(svcd.child.exitCode).to.equal(null);
        } finally {
          await svcd.dispose();
          await app.stop();
          await server.kill();
          removeTempFolder(dir);
        }
      });
    }
  });
}
