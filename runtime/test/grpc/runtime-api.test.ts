/**
 * The gRPC runtime API against a real svcd with raw grpc-js clients: the same implementation under
 * svc.proto.runtime.v1.Svc and dapr.proto.runtime.v1.Dapr, errors with the catalogue's status and an ErrorInfo
 * detail naming the code, the API token, grpc.health.v1 (Check and Watch), reflection, workflow management, the
 * actor gate, and UNIMPLEMENTED naming a building block svc lacks.
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { decodeRichStatus, loadHealthProto, loadRuntimeApiProto, STATUS_DETAILS_TRAILER } from '@svc/proto';
import { componentYaml, SvcdProcess } from '../support/index.js';

type Unary = (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res?: unknown) => void) => void;

function clientOf(definition: grpc.ServiceDefinition, name: string, port: number): Record<string, Unary> {
  const Client = grpc.makeGenericClientConstructor(definition, name);
  return new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as Record<string, Unary>;
}

function call<T>(client: Record<string, Unary>, method: string, req: unknown, md = new grpc.Metadata()): Promise<T> {
  return new Promise((resolve, reject) => client[method]!.call(client, req, md, (err, res) => (err ? reject(err) : resolve(res as T))));
}

function failure(client: Record<string, Unary>, method: string, req: unknown, md?: grpc.Metadata): Promise<grpc.ServiceError> {
  return call(client, method, req, md).then(
    () => {
      throw new Error(`${method} succeeded`);
    },
    (err: grpc.ServiceError) => err,
  );
}

/** The ErrorInfo reason the status details carry. */
function reason(err: grpc.ServiceError): string | undefined {
  const bytes = err.metadata.get(STATUS_DETAILS_TRAILER)[0];
  if (!bytes) return undefined;
  const detail = decodeRichStatus(bytes as Buffer).details.find((d) => d.type === 'google.rpc.ErrorInfo');
  return detail && detail.type === 'google.rpc.ErrorInfo' ? detail.reason : undefined;
}

describe('gRPC runtime API (real svcd, raw gRPC clients)', function () {
  this.timeout(60_000);
  let svcd: SvcdProcess;
  let svc: Record<string, Unary>;
  let dapr: Record<string, Unary>;

  before(async () => {
    svcd = await SvcdProcess.start({ resources: { 'store.yaml': componentYaml('store', 'state.sqlite', { actorStateStore: 'true' }) } });
    const [svcService, daprService] = loadRuntimeApiProto().services;
    svc = clientOf(svcService!.definition, 'Svc', svcd.ports.grpc);
    dapr = clientOf(daprService!.definition, 'Dapr', svcd.ports.grpc);
  });
  after(async () => svcd?.dispose());

  it('serves one implementation under both service names', async () => {
    await call(dapr, 'SaveState', { storeName: 'store', states: [{ key: 'k', value: Buffer.from('"v"') }] });
    const got = await call<{ data: Buffer; etag: string }>(svc, 'GetState', { storeName: 'store', key: 'k' });
    expect(got.data.toString()).to.equal('"v"');
    expect(got.etag).to.not.equal('');
    const stale = await failure(svc, 'SaveState', { storeName: 'store', states: [{ key: 'k', value: Buffer.from('1'), etag: { value: '999' } }] });
    expect([stale.code, reason(stale)]).to.deep.equal([grpc.status.ABORTED, 'ERR_STATE_ETAG_MISMATCH']);
    await call(dapr, 'DeleteBulkState', { storeName: 'store', states: [{ key: 'k' }] });
    expect((await call<{ data: Buffer }>(dapr, 'GetState', { storeName: 'store', key: 'k' })).data.length).to.equal(0);
  });

  it('answers errors with the catalogue status and an ErrorInfo whose reason is the error code', async () => {
    const cases: [string, unknown, number, string][] = [
      ['GetState', { storeName: 'nope', key: 'k' }, grpc.status.INVALID_ARGUMENT, 'ERR_STATE_STORE_NOT_FOUND'],
      ['PublishEvent', { pubsubName: 'p', topic: 't', data: Buffer.from('{}') }, grpc.status.FAILED_PRECONDITION, 'ERR_PUBSUB_NOT_CONFIGURED'],
      ['InvokeBinding', { name: 'b', operation: 'create' }, grpc.status.NOT_FOUND, 'ERR_BINDING_NOT_FOUND'],
      ['GetWorkflowBeta1', { instanceId: 'missing', workflowComponent: 'dapr' }, grpc.status.NOT_FOUND, 'ERR_INSTANCE_ID_NOT_FOUND'],
      ['StartWorkflowBeta1', { instanceId: 'a/b', workflowComponent: 'dapr', workflowName: 'w' }, grpc.status.INVALID_ARGUMENT, 'ERR_INSTANCE_ID_INVALID'],
      ['InvokeActor', { actorType: 'svc.internal.workflow', actorId: 'x', method: 'm' }, grpc.status.INVALID_ARGUMENT, 'ERR_ACTOR_INSTANCE_MISSING'],
    ];
    for (const [method, req, code, errorCode] of cases) {
      const err = await failure(dapr, method, req);
      expect([err.code, reason(err)], `${method}: ${err.details}`).to.deep.equal([code, errorCode]);
    }
  });

  it('manages a workflow instance (no worker: it stays pending) and gives dapr.workflow.* properties to Dapr clients', async () => {
    const started = await call<{ instanceId: string }>(dapr, 'StartWorkflowBeta1', { instanceId: 'wf-1', workflowComponent: 'dapr', workflowName: 'hello', input: Buffer.from('"in"') });
    expect(started.instanceId).to.equal('wf-1');
    const got = await call<{ workflowName: string; runtimeStatus: string; properties: Record<string, string>; createdAt: { seconds: string } }>(dapr, 'GetWorkflowAlpha1', { instanceId: 'wf-1' });
    expect(got).to.include({ workflowName: 'hello', runtimeStatus: 'PENDING' });
    expect(got.properties).to.deep.include({ 'dapr.workflow.input': '"in"' });
    expect(Number(got.createdAt.seconds)).to.be.closeTo(Date.now() / 1000, 60);
    await call(dapr, 'TerminateWorkflowBeta1', { instanceId: 'wf-1', workflowComponent: 'dapr' });
    const http = (await (await svcd.request('GET', '/v1.0/workflows/svc/wf-1')).json()) as { runtimeStatus: string };
    expect(http.runtimeStatus).to.equal('TERMINATED');
    await call(svc, 'PurgeWorkflowBeta1', { instanceId: 'wf-1', workflowComponent: 'svc' });
    expect((await svcd.request('GET', '/v1.0/workflows/svc/wf-1')).status).to.equal(404);
  });

  it('names the building block of a method svc does not implement', async () => {
    const err = await failure(dapr, 'SubtleGetKeyAlpha1', {});
    expect(err.code).to.equal(grpc.status.UNIMPLEMENTED);
    expect(err.details).to.contain('cryptography');
  });

  it('answers grpc.health.v1 Check and Watch', async () => {
    const health = loadHealthProto();
    const client = new health.grpc.Health(`127.0.0.1:${svcd.ports.grpc}`, grpc.credentials.createInsecure());
    const check = (service: string) => new Promise<string>((resolve, reject) => client.Check({ service }, (err, res) => (err ? reject(err) : resolve(res!.status))));
    expect(await check('')).to.equal('SERVING');
    expect(await check('dapr.proto.runtime.v1.Dapr')).to.equal('SERVING');
    expect(await check('no.such.Service')).to.equal('SERVICE_UNKNOWN');
    const watch = client.Watch({ service: '' });
    watch.on('error', () => undefined); // the CANCELLED of our own cancel()
    const first = await new Promise<string>((resolve) => watch.once('data', (r: { status: string }) => resolve(r.status)));
    watch.cancel();
    expect(first).to.equal('SERVING');
    client.close();
  });

  it('lists and describes its services by reflection, v1 and v1alpha (loaded and indexed on the first call)', async () => {
    /** One reflection request (raw bytes) and the printable runs of its answer, enough to see names in it. */
    const reflect = (version: string, request: Buffer) =>
      new Promise<string[]>((resolve, reject) => {
        const Client = grpc.makeGenericClientConstructor({}, 'x');
        const c = new Client(`127.0.0.1:${svcd.ports.grpc}`, grpc.credentials.createInsecure());
        const stream = c.makeBidiStreamRequest(
          `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`,
          (b: Buffer) => b,
          (b: Buffer) => b,
        );
        stream.on('data', (b: Buffer) => {
          resolve(b.toString('latin1').match(/[A-Za-z.][A-Za-z0-9_.]{3,}/g) ?? []);
          stream.end();
        });
        stream.on('error', reject);
        stream.write(request);
      });
    /** ServerReflectionRequest { file_containing_symbol = 4: symbol } */
    const fileContaining = (symbol: string) => Buffer.concat([Buffer.from([0x22, symbol.length]), Buffer.from(symbol)]);
    for (const version of ['v1', 'v1alpha']) {
      // ServerReflectionRequest { list_services = 7: "" }
      const listed = await reflect(version, Buffer.from([0x3a, 0x00]));
      expect(listed, version).to.include.members(['svc.proto.runtime.v1.Svc', 'dapr.proto.runtime.v1.Dapr', 'grpc.health.v1.Health', 'TaskHubSidecarService']);
      // The file descriptors: under Dapr's package name, the Durable Task protocol's (a service without a package:
      // listed and found by its plain name), and the health service's.
      expect(await reflect(version, fileContaining('dapr.proto.runtime.v1.Dapr')), version).to.include.members(['dapr.proto.runtime.v1', 'Dapr', 'GetState']);
      expect(await reflect(version, fileContaining('TaskHubSidecarService')), version).to.include.members(['TaskHubSidecarService', 'StartInstance']);
      expect(await reflect(version, fileContaining('grpc.health.v1.Health')), version).to.include.members(['grpc.health.v1', 'Health']);
    }
  });
});

describe('gRPC runtime API with an API token', function () {
  this.timeout(60_000);

  it('refuses calls without the token and takes dapr-api-token or svc-api-token metadata', async () => {
    const svcd = await SvcdProcess.start({ env: { SVC_API_TOKEN: 's3cret' }, resources: { 'store.yaml': componentYaml('store', 'state.in-memory') } });
    try {
      const dapr = clientOf(loadRuntimeApiProto().services[1]!.definition, 'Dapr', svcd.ports.grpc);
      const refused = await failure(dapr, 'GetMetadata', {});
      expect(refused.code).to.equal(grpc.status.UNAUTHENTICATED);
      for (const header of ['dapr-api-token', 'svc-api-token']) {
        const md = new grpc.Metadata();
        md.set(header, 's3cret');
        expect((await call<{ id: string }>(dapr, 'GetMetadata', {}, md)).id).to.equal('testapp');
      }
    } finally {
      await svcd.dispose();
    }
  });
});
