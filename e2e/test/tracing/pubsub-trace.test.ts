/**
 * One trace from a publisher through the broker to the subscriber, with real svcd processes exporting to a real
 * OpenTelemetry Collector: the caller's `traceparent` on an HTTP publish to svcd A, svcd A's server and
 * `publish` spans, the CloudEvent on Redis Streams or JetStream carrying that context, svcd B's `process` span
 * continuing it and its call to the app (HTTP or gRPC app channel) under that, the app receiving the
 * `traceparent` of that call. A bulk subscription's batch: a `process` span linked to each publisher's span.
 */
import { callerContext, componentYaml, deleteJetStreamStream, collectorForSuite, onlySpan, parseTraceparent, SPAN_KIND, SubscriberApp, SvcdProcess, TEST_NATS_URL, TEST_REDIS_HOST, tracingConfiguration } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { GrpcSubscriberApp } from '../support/grpc-subscriber-app.js';

const BROKERS = [
  { name: 'Redis Streams', type: 'pubsub.redis', system: 'redis', metadata: () => ({ redisHost: TEST_REDIS_HOST }) },
  { name: 'JetStream', type: 'pubsub.jetstream', system: 'jetstream', metadata: (stream: string) => ({ natsURL: TEST_NATS_URL, streamName: stream }) },
] as const;

/** What the subscriber app received: the CloudEvent's trace fields and the `traceparent` its call carried. */
interface Received {
  readonly event: Record<string, unknown>;
  readonly callTraceparent: string;
}

interface Subscriber {
  readonly appArgs: string[];
  received(): Promise<Received>;
  stop(): Promise<void>;
}

async function httpSubscriber(topic: string): Promise<Subscriber> {
  const app = await SubscriberApp.start([{ pubsubname: 'pubsub', topic, route: '/orders' }]);
  return {
    appArgs: ['--app-port', String(app.port)],
    received: async () => {
      const [d] = await app.waitFor('/orders', 1, 30_000);
      return { event: d!.body, callTraceparent: String(d!.headers.traceparent) };
    },
    stop: () => app.stop(),
  };
}

async function grpcSubscriber(topic: string): Promise<Subscriber> {
  const app = await GrpcSubscriberApp.start('pubsub', topic);
  return {
    appArgs: ['--app-port', String(app.port), '--app-protocol', 'grpc'],
    received: async () => {
      const deadline = Date.now() + 30_000;
      while (app.deliveries.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const d = app.deliveries[0];
      if (!d) throw new Error('the gRPC app received no event');
      const fields = d.request.extensions?.fields ?? {};
      const event = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.stringValue]));
      return { event, callTraceparent: String(d.metadata.traceparent) };
    },
    stop: () => app.stop(),
  };
}

const TRANSPORTS = [
  { name: 'HTTP', subscriber: httpSubscriber, rpc: false },
  { name: 'gRPC', subscriber: grpcSubscriber, rpc: true },
] as const;

describe('tracing: publish → broker → subscriber as one trace (real svcd, real collector)', function () {
  this.timeout(120_000);
  const collector = collectorForSuite();

  for (const broker of BROKERS) {
    for (const transport of TRANSPORTS) {
      it(`${broker.name}, subscriber on the ${transport.name} app channel`, async () => {
        const suffix = randomUUID().slice(0, 8);
        const topic = `traced-${suffix}`;
        const stream = `traced-${suffix}`;
        const pubsub = componentYaml('pubsub', broker.type, broker.metadata(stream));
        const subscriber = await transport.subscriber(topic);
        // The publisher exports over OTLP/HTTP, the subscriber over OTLP/gRPC: both exporters in one trace.
        const publisherId = `pub-${suffix}`;
        const subscriberId = `sub-${suffix}`;
        const a = await SvcdProcess.start({ appId: publisherId, resources: { 'pubsub.yaml': pubsub, 'config.yaml': tracingConfiguration({ samplingRate: 1, endpoint: collector().httpEndpoint }) } });
        const b = await SvcdProcess.start({
          appId: subscriberId,
          resources: { 'pubsub.yaml': pubsub, 'config.yaml': tracingConfiguration({ samplingRate: 1, endpoint: collector().grpcEndpoint, protocol: 'grpc' }) },
          args: subscriber.appArgs,
        });
        try {
          const caller = callerContext();
          const res = await a.request('POST', `/v1.0/publish/pubsub/${topic}`, { order: 1 }, { traceparent: caller.traceparent, tracestate: 'caller=yes' });
          expect(res.status).to.equal(204);
          const got = await subscriber.received();

          const spans = await collector().trace(caller.traceId, (s) => s.filter((x) => x.service === subscriberId).length >= 2 && s.some((x) => x.service === publisherId && x.kind === SPAN_KIND.producer));
          const server = onlySpan(spans, 'the publish request', (s) => s.service === publisherId && s.kind === SPAN_KIND.server);
          expect(server.parentSpanId).to.equal(caller.spanId);
          expect(server.name).to.match(/^POST \/v1\.0\/publish\/:pubsub/);
          const producer = onlySpan(spans, 'the publish span', (s) => s.kind === SPAN_KIND.producer);
          expect(producer).to.include({ service: publisherId, name: `publish ${topic}`, parentSpanId: server.spanId });
          expect(producer.attributes).to.include({ 'messaging.system': broker.system, 'messaging.destination.name': topic, 'messaging.operation.type': 'send' });
          const consumer = onlySpan(spans, 'the delivery span', (s) => s.kind === SPAN_KIND.consumer);
          expect(consumer).to.include({ service: subscriberId, name: `process ${topic}`, parentSpanId: producer.spanId });
          expect(consumer.attributes).to.include({ 'messaging.system': broker.system, 'messaging.operation.type': 'process', 'messaging.consumer.group.name': subscriberId });
          const call = onlySpan(spans, 'the call to the app', (s) => s.service === subscriberId && s.kind === SPAN_KIND.client);
          expect(call.parentSpanId).to.equal(consumer.spanId);
          expect(call.name).to.equal(transport.rpc ? 'dapr.proto.runtime.v1.AppCallback/OnTopicEvent' : 'POST');

          // The CloudEvent carries the publish span's context as Dapr writes it; the app's call carries its own.
          const published = parseTraceparent(got.event.traceparent);
          expect(published).to.include({ traceId: caller.traceId, parentId: producer.spanId, flags: '01' });
          expect(got.event.traceid).to.equal(got.event.traceparent);
          expect(got.event.tracestate).to.equal('caller=yes');
          expect(parseTraceparent(got.callTraceparent)).to.include({ traceId: caller.traceId, parentId: call.spanId });
        } finally {
          await Promise.all([a.dispose(), b.dispose()]);
          await subscriber.stop();
          if (broker.type === 'pubsub.jetstream') await deleteJetStreamStream(stream);
        }
      });
    }
  }

  it('a bulk subscription: the batch is a process span linked to the publish span of each event in it', async () => {
    const suffix = randomUUID().slice(0, 8);
    const topic = `traced-bulk-${suffix}`;
    const appId = `bulk-${suffix}`;
    const app = await SubscriberApp.start([{ pubsubname: 'pubsub', topic, route: '/batch', bulkSubscribe: { enabled: true, maxMessagesCount: 2, maxAwaitDurationMs: 5_000 } }]);
    app.answers.set('/batch', [{ status: 200, bodyFor: (d) => ({ statuses: (d.body.entries as { entryId: string }[]).map((e) => ({ entryId: e.entryId, status: 'SUCCESS' })) }) }]);
    const svcd = await SvcdProcess.start({
      appId,
      resources: { 'pubsub.yaml': componentYaml('pubsub', 'pubsub.redis', { redisHost: TEST_REDIS_HOST }), 'config.yaml': tracingConfiguration({ samplingRate: 1, endpoint: collector().httpEndpoint }) },
      args: ['--app-port', String(app.port)],
    });
    try {
      const callers = [callerContext(), callerContext()];
      for (const c of callers) expect((await svcd.request('POST', `/v1.0/publish/pubsub/${topic}`, { n: 1 }, { traceparent: c.traceparent })).status).to.equal(204);
      const [batch] = await app.waitFor('/batch', 1, 30_000);
      expect(batch!.body.entries).to.have.length(2);
      const producers = await Promise.all(callers.map(async (c) => onlySpan(await collector().trace(c.traceId, (s) => s.some((x) => x.kind === SPAN_KIND.producer)), 'the publish span', (s) => s.kind === SPAN_KIND.producer)));
      const call = parseTraceparent(batch!.headers.traceparent);
      const spans = await collector().trace(call.traceId, (s) => s.length >= 2);
      const consumer = onlySpan(spans, 'the batch', (s) => s.kind === SPAN_KIND.consumer);
      expect(consumer).to.include({ service: appId, name: `process ${topic}`, parentSpanId: '' });
      expect(consumer.attributes).to.include({ 'messaging.batch.message_count': 2, 'messaging.system': 'redis' });
      expect(consumer.links).to.have.deep.members(producers.map((p) => ({ traceId: p.traceId, spanId: p.spanId })));
      const delivery = onlySpan(spans, 'the call to the app', (s) => s.kind === SPAN_KIND.client);
      expect(delivery.parentSpanId).to.equal(consumer.spanId);
      expect(call.parentId).to.equal(delivery.spanId);
    } finally {
      await svcd.dispose();
      await app.stop();
    }
  });
});
