/**
 * Traces through the APIs, with real svcd processes and a real OpenTelemetry Collector: an app's `traceparent`
 * continued through a state call (HTTP and gRPC API) down to a span naming the Redis store; service invocation
 * app → svcd A → svcd B → app B as one trace; log lines inside a traced request carrying its trace_id; an output
 * binding call under its request, an input binding's event beginning a trace that reaches the app; sampling rate 1 exporting and rate 0 exporting nothing
 * while the context still reaches the app.
 */
import * as grpc from '@grpc/grpc-js';
import { loadRuntimeApiProto } from '@svc/proto';
import { callerContext, componentYaml, ExampleComponent, deleteRedisKeysWithPrefix, collectorForSuite, onlySpan, parseTraceparent, SPAN_KIND, SubscriberApp, SvcdProcess, tempFolder, tempSocketsFolder, TEST_REDIS_HOST, tracingConfiguration, tracingSpec } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { EchoApp, invocationConfiguration, type SeenRequest } from '../support/echo-app.js';

type Unary = (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res?: unknown) => void) => void;

describe('tracing: state, service invocation, logs and sampling (real svcd, real collector)', function () {
  this.timeout(120_000);
  const collector = collectorForSuite();

  describe('a state call continues the app trace', () => {
    const appId = `traced-state-${randomUUID().slice(0, 8)}`;
    let svcd: SvcdProcess;
    let dapr: Record<string, Unary>;

    before(async () => {
      svcd = await SvcdProcess.start({
        appId,
        resources: { 'store.yaml': componentYaml('orders-store', 'state.redis', { redisHost: TEST_REDIS_HOST }), 'config.yaml': tracingConfiguration({ samplingRate: 1, endpoint: collector().httpEndpoint }) },
        args: ['--log-level', 'debug'],
      });
      const definition = loadRuntimeApiProto().services[1]!.definition;
      const Client = grpc.makeGenericClientConstructor(definition, 'Dapr');
      dapr = new Client(svcd.grpcAddress, grpc.credentials.createInsecure()) as unknown as Record<string, Unary>;
    });
    after(async () => {
      await svcd?.dispose();
      await deleteRedisKeysWithPrefix(`${appId}||`);
    });

    it('over HTTP: the server span is the app span’s child, the store call a child of it naming the store', async () => {
      const caller = callerContext();
      const res = await svcd.request('POST', '/v1.0/state/orders-store', [{ key: 'k1', value: { n: 1 } }], { traceparent: caller.traceparent });
      expect(res.status).to.equal(204);
      const spans = await collector().trace(caller.traceId, (s) => s.length >= 2);
      const server = onlySpan(spans, 'the request', (s) => s.kind === SPAN_KIND.server);
      expect(server).to.include({ service: appId, parentSpanId: caller.spanId, name: 'POST /v1.0/state/:store' });
      expect(server.attributes).to.include({ 'http.request.method': 'POST', 'http.route': '/v1.0/state/:store', 'http.response.status_code': 204 });
      const store = onlySpan(spans, 'the store call', (s) => s.kind === SPAN_KIND.client);
      expect(store).to.include({ name: 'SET orders-store', parentSpanId: server.spanId });
      expect(store.attributes).to.include({ 'db.system.name': 'redis', 'db.operation.name': 'SET', 'db.collection.name': 'orders-store' });
    });

    it('over gRPC: SaveState with a traceparent in the metadata', async () => {
      const caller = callerContext();
      const md = new grpc.Metadata();
      md.set('traceparent', caller.traceparent);
      await new Promise((resolve, reject) => dapr.SaveState!.call(dapr, { storeName: 'orders-store', states: [{ key: 'k2', value: Buffer.from('2') }] }, md, (err, res) => (err ? reject(err) : resolve(res))));
      const spans = await collector().trace(caller.traceId, (s) => s.length >= 2);
      const server = onlySpan(spans, 'the call', (s) => s.kind === SPAN_KIND.server);
      expect(server).to.include({ parentSpanId: caller.spanId, name: 'dapr.proto.runtime.v1.Dapr/SaveState' });
      expect(server.attributes).to.include({ 'rpc.system': 'grpc', 'rpc.service': 'dapr.proto.runtime.v1.Dapr', 'rpc.method': 'SaveState', 'rpc.grpc.status_code': 0 });
      expect(onlySpan(spans, 'the store call', (s) => s.kind === SPAN_KIND.client)).to.include({ name: 'SET orders-store', parentSpanId: server.spanId });
    });

    it('a failed request records the catalogue code on its span, and its log line carries trace_id and span_id', async () => {
      const caller = callerContext();
      const res = await svcd.request('GET', '/v1.0/state/no-such-store/k', undefined, { traceparent: caller.traceparent });
      expect(res.status).to.equal(400);
      const [server] = await collector().trace(caller.traceId, (s) => s.length >= 1);
      expect(server!.attributes).to.include({ 'error.type': 'ERR_STATE_STORE_NOT_FOUND', 'http.response.status_code': 400 });
      const lines = svcd.output.split('\n').filter((l) => l.includes('API request rejected') && l.includes('no-such-store'));
      expect(lines, svcd.output).to.have.length(1);
      const line = JSON.parse(lines[0]!) as Record<string, unknown>;
      expect(line).to.include({ trace_id: caller.traceId, span_id: server!.spanId });
      expect(server!.statusCode, 'a 4xx is the client\'s error, not the server span\'s (HTTP conventions)').to.equal(0);
    });

    it('a 5xx marks the server span as an error, with the catalogue code', async () => {
      const caller = callerContext();
      // This svcd has no actor state store: jobs answer 500 ERR_ACTOR_RUNTIME_NOT_FOUND.
      const res = await svcd.request('POST', '/v1.0-alpha1/jobs/traced', JSON.stringify({ dueTime: '1s' }), { 'content-type': 'application/json', traceparent: caller.traceparent });
      expect(res.status).to.equal(500);
      const [server] = await collector().trace(caller.traceId, (s) => s.length >= 1);
      expect(server!.statusCode).to.equal(2);
      expect(server!.attributes).to.include({ 'error.type': 'ERR_ACTOR_RUNTIME_NOT_FOUND', 'http.response.status_code': 500 });
    });
  });

  describe('service invocation across two sidecars', () => {
    const app = new EchoApp();
    let a: SvcdProcess;
    let b: SvcdProcess;
    const suffix = randomUUID().slice(0, 8);
    const callee = `traced-callee-${suffix}`;
    const callerId = `traced-caller-${suffix}`;

    before(async () => {
      await app.start();
      const registry = path.join(tempFolder('registry-'), 'registry.db');
      // svcd A exports over OTLP/gRPC, svcd B over OTLP/HTTP.
      b = await SvcdProcess.start({ appId: callee, resources: { 'configuration.yaml': invocationConfiguration(registry, tracingSpec({ samplingRate: 1, endpoint: collector().httpEndpoint })) }, args: ['--app-port', String(app.port)] });
      a = await SvcdProcess.start({ appId: callerId, resources: { 'configuration.yaml': invocationConfiguration(registry, tracingSpec({ samplingRate: 1, endpoint: collector().grpcEndpoint, protocol: 'grpc' })) } });
    });
    after(async () => {
      await Promise.all([a?.dispose(), b?.dispose()]);
      await app.stop();
    });

    it('app → svcd A → svcd B → app B is one trace, each hop the child of the one before', async () => {
      const caller = callerContext();
      const res = await fetch(`${a.httpUrl}/v1.0/invoke/${callee}/method/orders/7`, { headers: { traceparent: caller.traceparent } });
      expect(res.status).to.equal(200);
      const seen = (await res.json()) as SeenRequest;
      const spans = await collector().trace(caller.traceId, (s) => s.length >= 4);
      const inbound = onlySpan(spans, "svcd A's API request", (s) => s.service === callerId && s.kind === SPAN_KIND.server);
      expect(inbound).to.include({ parentSpanId: caller.spanId, name: 'GET /v1.0/invoke/:id/method/*' });
      const out = onlySpan(spans, "svcd A's call to svcd B", (s) => s.service === callerId && s.kind === SPAN_KIND.client);
      expect(out).to.include({ name: `invoke ${callee}`, parentSpanId: inbound.spanId });
      const served = onlySpan(spans, "svcd B's side of it", (s) => s.service === callee && s.kind === SPAN_KIND.server);
      expect(served).to.include({ name: `invoke ${callee}`, parentSpanId: out.spanId });
      expect(served.attributes).to.include({ 'svc.invoke.caller': callerId, 'svc.invoke.path': '/orders/7' });
      const toApp = onlySpan(spans, "svcd B's call to its app", (s) => s.service === callee && s.kind === SPAN_KIND.client);
      expect(toApp).to.include({ name: 'GET', parentSpanId: served.spanId });
      expect(toApp.attributes).to.include({ 'http.response.status_code': 200 });
      expect(parseTraceparent(seen.headers.traceparent)).to.include({ traceId: caller.traceId, parentId: toApp.spanId, flags: '01' });
    });
  });

  describe('bindings', () => {
    let app: SubscriberApp;
    let component: ExampleComponent;
    let svcd: SvcdProcess;
    const appId = `traced-bindings-${randomUUID().slice(0, 8)}`;

    before(async () => {
      app = await SubscriberApp.start();
      const folder = tempSocketsFolder();
      component = await ExampleComponent.start({ folder, name: 'memstore' });
      svcd = await SvcdProcess.start({
        appId,
        socketsFolder: folder,
        resources: {
          'ticks.yaml': componentYaml('ticks', 'bindings.cron', { schedule: '@every 1s' }),
          'outbox.yaml': componentYaml('outbox', 'bindings.memstore'),
          'config.yaml': tracingConfiguration({ samplingRate: 1, endpoint: collector().httpEndpoint }),
        },
        args: ['--app-port', String(app.port)],
      });
    });
    after(async () => {
      await svcd?.dispose();
      await component?.stop();
      await app?.stop();
    });

    it('an output binding call is a CLIENT span under the request, naming the binding and the operation', async () => {
      const caller = callerContext();
      const res = await svcd.request('POST', '/v1.0/bindings/outbox', { operation: 'create', data: { n: 1 } }, { traceparent: caller.traceparent });
      expect(res.status).to.be.within(200, 204);
      const spans = await collector().trace(caller.traceId, (s) => s.length >= 2);
      const server = onlySpan(spans, 'the request', (s) => s.kind === SPAN_KIND.server);
      const call = onlySpan(spans, 'the binding call', (s) => s.kind === SPAN_KIND.client);
      expect(call).to.include({ name: 'create outbox', parentSpanId: server.spanId });
      expect(call.attributes).to.include({ 'svc.binding.name': 'outbox', 'svc.binding.operation': 'create', 'svc.component.type': 'bindings.memstore' });
    });

    it('an event begins a trace: a process span, the call to the app under it, the app receiving that call’s traceparent', async () => {
      const [tick] = await app.waitFor('/ticks', 1, 15_000);
      const received = parseTraceparent(tick!.headers.traceparent);
      const spans = await collector().trace(received.traceId, (s) => s.length >= 2);
      const consumer = onlySpan(spans, 'the delivery', (s) => s.kind === SPAN_KIND.consumer);
      expect(consumer).to.include({ service: appId, name: 'process ticks', parentSpanId: '' });
      expect(consumer.attributes).to.include({ 'messaging.system': 'cron', 'svc.binding.name': 'ticks' });
      const call = onlySpan(spans, 'the call to the app', (s) => s.kind === SPAN_KIND.client);
      expect(call).to.include({ name: 'POST', parentSpanId: consumer.spanId });
      expect(received.parentId).to.equal(call.spanId);
    });
  });

  describe('sampling', () => {
    const app = new EchoApp();
    const suffix = randomUUID().slice(0, 8);
    let sampled: SvcdProcess;
    let unsampled: SvcdProcess;

    before(async () => {
      await app.start();
      const start = (appId: string, samplingRate: number) =>
        SvcdProcess.start({ appId, resources: { 'config.yaml': tracingConfiguration({ samplingRate, endpoint: collector().httpEndpoint }) }, args: ['--app-port', String(app.port)] });
      [sampled, unsampled] = await Promise.all([start(`rate-one-${suffix}`, 1), start(`rate-zero-${suffix}`, 0)]);
    });
    after(async () => {
      await Promise.all([sampled?.dispose(), unsampled?.dispose()]);
      await app.stop();
    });

    const invokeSelf = async (svcd: SvcdProcess, appId: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${svcd.httpUrl}/v1.0/invoke/${appId}/method/hello`, { headers });
      expect(res.status).to.equal(200);
      return (await res.json()) as SeenRequest;
    };

    it('rate 1 samples a new trace; rate 0 exports nothing, yet the app still gets a traceparent (a caller’s trace id kept)', async () => {
      const fresh = parseTraceparent((await invokeSelf(sampled, `rate-one-${suffix}`)).headers.traceparent);
      expect(fresh.flags).to.equal('01');
      const unsampledFresh = parseTraceparent((await invokeSelf(unsampled, `rate-zero-${suffix}`)).headers.traceparent);
      expect(unsampledFresh.flags).to.equal('00');
      const caller = callerContext();
      const continued = parseTraceparent((await invokeSelf(unsampled, `rate-zero-${suffix}`, { traceparent: caller.traceparent })).headers.traceparent);
      expect(continued.traceId).to.equal(caller.traceId);
      expect(continued.parentId).to.not.equal(caller.spanId);

      // Both svcd export on the same schedule: once the sampled one's spans are in, the other had its chance too.
      await collector().trace(fresh.traceId, (s) => s.length >= 2);
      await new Promise((r) => setTimeout(r, 2_000));
      expect(collector().spans().filter((s) => s.service === `rate-zero-${suffix}`)).to.deep.equal([]);
      expect(collector().spans().filter((s) => s.traceId === caller.traceId || s.traceId === unsampledFresh.traceId)).to.deep.equal([]);
    });
  });
});
