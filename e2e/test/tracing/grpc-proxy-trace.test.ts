/**
 * gRPC proxying traced, with real svcd processes and a real OpenTelemetry Collector: a grpc-js client calls its
 * svcd (A) with `dapr-app-id` metadata and a `traceparent`; svcd A serves the call in a span continuing it, calls
 * svcd B under that, svcd B serves its side as that call's child, and the app's gRPC server receives svcd B's
 * context: one trace from the client to the app.
 */
import * as grpc from '@grpc/grpc-js';
import { callerContext, collectorForSuite, freePort, onlySpan, parseTraceparent, SPAN_KIND, SvcdProcess, tempFolder, tracingSpec } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { invocationConfiguration } from '../support/echo-app.js';

const ECHO = '/lab.Lab/Echo';
const asIs = (b: Buffer): Buffer => b;
/** One unary method with raw bytes for messages: the proxy passes them as they are. */
const LAB: grpc.ServiceDefinition = {
  Echo: { path: ECHO, requestStream: false, responseStream: false, requestSerialize: asIs, requestDeserialize: asIs, responseSerialize: asIs, responseDeserialize: asIs },
};

describe('tracing: gRPC proxying through two sidecars (real svcd, real collector)', function () {
  this.timeout(120_000);
  const collector = collectorForSuite();
  const suffix = randomUUID().slice(0, 8);
  const callee = `traced-lab-${suffix}`;
  const callerId = `traced-lab-caller-${suffix}`;
  const seen: Record<string, string>[] = [];
  const app = new grpc.Server();
  let a: SvcdProcess;
  let b: SvcdProcess;

  before(async () => {
    app.addService(LAB, {
      Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
        seen.push(Object.fromEntries(Object.entries(call.metadata.getMap()).map(([k, v]) => [k, String(v)])));
        done(null, call.request);
      },
    });
    const port = await freePort();
    await new Promise<void>((resolve, reject) => app.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
    const registry = path.join(tempFolder('registry-'), 'registry.db');
    const config = (protocol: 'http' | 'grpc') => invocationConfiguration(registry, tracingSpec({ samplingRate: 1, endpoint: protocol === 'http' ? collector().httpEndpoint : collector().grpcEndpoint, protocol }));
    b = await SvcdProcess.start({ appId: callee, resources: { 'configuration.yaml': config('http') }, args: ['--app-port', String(port), '--app-protocol', 'grpc'] });
    a = await SvcdProcess.start({ appId: callerId, resources: { 'configuration.yaml': config('grpc') } });
  });
  after(async () => {
    await Promise.all([a?.dispose(), b?.dispose()]);
    await new Promise<void>((resolve) => app.tryShutdown(() => resolve()));
  });

  it('client → svcd A → svcd B → the app’s gRPC server is one trace', async () => {
    const caller = callerContext();
    const md = new grpc.Metadata();
    md.set('dapr-app-id', callee);
    md.set('traceparent', caller.traceparent);
    const client = new grpc.Client(a.grpcAddress, grpc.credentials.createInsecure());
    const answer = await new Promise<Buffer>((resolve, reject) => client.makeUnaryRequest(ECHO, asIs, asIs, Buffer.from('hello'), md, (err, res) => (err ? reject(err) : resolve(res!))));
    client.close();
    expect(answer.toString()).to.equal('hello');

    const spans = await collector().trace(caller.traceId, (s) => s.length >= 3);
    const served = onlySpan(spans, "svcd A's proxied call", (s) => s.service === callerId && s.kind === SPAN_KIND.server);
    expect(served).to.include({ name: 'lab.Lab/Echo', parentSpanId: caller.spanId });
    expect(served.attributes).to.include({ 'rpc.system': 'grpc', 'rpc.service': 'lab.Lab', 'rpc.method': 'Echo', 'rpc.grpc.status_code': 0 });
    const out = onlySpan(spans, "svcd A's call to svcd B", (s) => s.service === callerId && s.kind === SPAN_KIND.client);
    expect(out).to.include({ name: `invoke ${callee}`, parentSpanId: served.spanId });
    expect(out.attributes).to.include({ 'rpc.method': 'Proxy', 'svc.invoke.path': ECHO });
    const inB = onlySpan(spans, "svcd B's side", (s) => s.service === callee && s.kind === SPAN_KIND.server);
    expect(inB.parentSpanId).to.equal(out.spanId);
    expect(seen).to.have.length(1);
    expect(parseTraceparent(seen[0]!.traceparent)).to.include({ traceId: caller.traceId, parentId: inB.spanId });
  });
});
