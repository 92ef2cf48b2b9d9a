/**
 * App health checks (`--enable-app-health-check`) against a real svcd: an app that fails its probes `threshold`
 * times gets no deliveries (pub/sub and input bindings) until a probe succeeds again; then what waited is
 * delivered. Over HTTP (GET of the health path) and over gRPC (AppCallbackHealthCheck).
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { loadAppCallbackProto } from '@svc/proto';
import { componentYaml, freePort, SubscriberApp, SvcdProcess } from '../support/index.js';

const HEALTH_ARGS = ['--enable-app-health-check', '--app-health-probe-interval', '100ms', '--app-health-probe-timeout', '200ms', '--app-health-threshold', '2'];
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('app health checks: deliveries wait while the app is unhealthy', function () {
  this.timeout(60_000);

  it('over HTTP: holds pub/sub deliveries while GET /healthz fails, delivers them once it answers 2xx', async () => {
    const app = await SubscriberApp.start([{ pubsubname: 'pubsub', topic: 'orders', route: '/orders' }]);
    const svcd = await SvcdProcess.start({ resources: { 'pubsub.yaml': componentYaml('pubsub', 'pubsub.in-memory') }, args: ['--app-port', String(app.port), ...HEALTH_ARGS] });
    try {
      expect((await svcd.request('POST', '/v1.0/publish/pubsub/orders', { n: 1 })).status).to.equal(204);
      await app.waitFor('/orders');
      app.healthStatus = 503;
      await settle(500);
      expect(svcd.output).to.include('the app is unhealthy');
      expect((await svcd.request('POST', '/v1.0/publish/pubsub/orders', { n: 2 })).status).to.equal(204);
      await settle(700);
      expect(app.to('/orders'), 'nothing delivered while unhealthy').to.have.length(1);
      app.healthStatus = 200;
      const got = await app.waitFor('/orders', 2);
      expect(got[1]!.body.data).to.deep.equal({ n: 2 });
      const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { appConnectionProperties: { health: { healthCheckPath: string } } };
      expect(meta.appConnectionProperties.health.healthCheckPath).to.equal('/healthz');
      expect(app.healthProbes).to.be.greaterThan(5);
    } finally {
      await svcd.dispose();
      await app.stop();
    }
  });

  it('over gRPC: asks AppCallbackHealthCheck and holds OnTopicEvent while it fails', async () => {
    const proto = loadAppCallbackProto();
    let healthy = true;
    const events: string[] = [];
    const server = new grpc.Server();
    server.addService(proto.AppCallback.service, {
      ListTopicSubscriptions: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, { subscriptions: [{ pubsubName: 'pubsub', topic: 'orders', routes: { default: 'orders' } }] }),
      OnTopicEvent: (call: grpc.ServerUnaryCall<{ data: Buffer }, unknown>, cb: grpc.sendUnaryData<unknown>) => {
        events.push(call.request.data.toString());
        cb(null, { status: 'SUCCESS' });
      },
      ListInputBindings: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, { bindings: [] }),
    });
    server.addService(proto.AppCallbackHealthCheck.service, {
      HealthCheck: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => (healthy ? cb(null, {}) : cb({ code: grpc.status.UNAVAILABLE, details: 'not now' })),
    });
    const port = await freePort();
    await new Promise<void>((resolve, reject) => server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
    const svcd = await SvcdProcess.start({ resources: { 'pubsub.yaml': componentYaml('pubsub', 'pubsub.in-memory') }, args: ['--app-port', String(port), '--app-protocol', 'grpc', ...HEALTH_ARGS] });
    try {
      expect((await svcd.request('POST', '/v1.0/publish/pubsub/orders', { n: 1 })).status).to.equal(204);
      await waitUntil(() => events.length === 1);
      healthy = false;
      await settle(500);
      expect((await svcd.request('POST', '/v1.0/publish/pubsub/orders', { n: 2 })).status).to.equal(204);
      await settle(700);
      expect(events, 'nothing delivered while unhealthy').to.have.length(1);
      healthy = true;
      await waitUntil(() => events.length === 2);
      expect(JSON.parse(events[1]!)).to.deep.equal({ n: 2 });
    } finally {
      await svcd.dispose();
      server.forceShutdown();
    }
  });
});

async function waitUntil(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await settle(50);
  }
}
