/**
 * The real @dapr/dapr DaprClient with CommunicationProtocolEnum.GRPC, unchanged, against svcd's gRPC port:
 * start-up (it waits on GetMetadata), state with ETags, bulk and transactions, publish and bulk publish to a
 * subscribed app, output bindings, metadata get/set, and the error codes over gRPC.
 */
import { CommunicationProtocolEnum, DaprClient, LogLevel } from '@dapr/dapr';
import { expect } from 'chai';
import { componentYaml, ExampleComponent, SubscriberApp, SvcdProcess, tempSocketsFolder } from '@svc/runtime/test-support';

describe('Dapr JS SDK DaprClient over gRPC against svcd', function () {
  this.timeout(60_000);
  let component: ExampleComponent;
  let app: SubscriberApp;
  let svcd: SvcdProcess;
  let client: DaprClient;

  before(async () => {
    const folder = tempSocketsFolder();
    component = await ExampleComponent.start({ folder, name: 'memstore' });
    app = await SubscriberApp.start([{ pubsubname: 'pubsub', topic: 'orders', route: '/orders' }]);
    svcd = await SvcdProcess.start({
      socketsFolder: folder,
      resources: {
        'state.yaml': componentYaml('statestore', 'state.sqlite'),
        'pubsub.yaml': componentYaml('pubsub', 'pubsub.in-memory'),
        'outbox.yaml': componentYaml('outbox', 'bindings.memstore'),
      },
      args: ['--app-port', String(app.port)],
    });
    client = new DaprClient({ daprHost: '127.0.0.1', daprPort: String(svcd.ports.grpc), communicationProtocol: CommunicationProtocolEnum.GRPC, logger: { level: LogLevel.Error } });
    await client.start();
  });
  after(async () => {
    await client?.stop();
    await svcd?.dispose();
    await app?.stop();
    await component?.stop();
  });

  it('saves, reads (with ETags), bulk-reads, deletes and runs transactions; HTTP reads the same bytes', async () => {
    await client.state.save('statestore', [{ key: 'a', value: { n: 1 } }, { key: 'b', value: 'text' }]);
    expect(await client.state.get('statestore', 'a')).to.deep.equal({ n: 1 });
    expect(await (await svcd.request('GET', '/v1.0/state/statestore/a')).json()).to.deep.equal({ n: 1 });
    const bulk = (await client.state.getBulk('statestore', ['a', 'b', 'missing'])) as Array<{ key: string; data: unknown; etag?: string }>;
    expect(bulk.map((i) => [i.key, i.data])).to.deep.include.members([['a', { n: 1 }], ['b', 'text']]);
    const etag = bulk.find((i) => i.key === 'a')!.etag!;
    expect(etag).to.be.a('string').and.not.equal('');
    // The SDK sends a transaction value as Buffer.from(value): callers serialise it (against daprd alike).
    await client.state.transaction('statestore', [
      { operation: 'upsert', request: { key: 'c', value: JSON.stringify([1, 2]) } },
      { operation: 'delete', request: { key: 'b' } },
    ]);
    expect(await client.state.get('statestore', 'c')).to.deep.equal([1, 2]);
    expect((await svcd.request('GET', '/v1.0/state/statestore/b')).status).to.equal(204);
    await client.state.delete('statestore', 'c');
    expect((await svcd.request('GET', '/v1.0/state/statestore/c')).status).to.equal(204);
  });

  it('publishes single and bulk messages the app receives as CloudEvents', async () => {
    const res = await client.pubsub.publish('pubsub', 'orders', { orderId: 7 });
    expect(res.error).to.equal(undefined);
    const bulk = await client.pubsub.publishBulk('pubsub', 'orders', [{ b: 1 }, { b: 2 }]);
    expect(bulk.failedMessages).to.deep.equal([]);
    const got = await app.waitFor('/orders', 3);
    expect(got.map((d) => d.body.data)).to.deep.include.members([{ orderId: 7 }, { b: 1 }, { b: 2 }]);
    expect(got[0]!.body.type).to.equal('com.dapr.event.sent');
  });

  it('invokes an output binding and gets its answer', async () => {
    // Over gRPC the SDK hands back the answer's bytes and metadata as they came.
    const json = (res: unknown) => JSON.parse(Buffer.from((res as { data: Uint8Array }).data).toString('utf8')) as unknown;
    const created = await client.binding.send('outbox', 'create', { order: 3 }, { contentType: 'application/json' });
    const { id } = json(created) as { id: string };
    expect((created as { metadata: Record<string, string> }).metadata).to.deep.include({ id });
    expect(json(await client.binding.send('outbox', 'get', undefined, { id }))).to.deep.equal({ order: 3 });
  });

  it('reads the metadata (components, subscriptions) and sets an attribute HTTP then shows', async () => {
    await client.metadata.set('team', 'payments');
    const meta = await client.metadata.get();
    expect(meta.id).to.equal('testapp');
    expect(meta.components.map((c) => c.name)).to.include.members(['statestore', 'pubsub', 'outbox']);
    expect(meta.extended).to.deep.include({ team: 'payments' });
    const http = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { extended: Record<string, string>; subscriptions: unknown[] };
    expect(http.extended).to.deep.include({ team: 'payments' });
    expect(http.subscriptions).to.have.length(1);
  });

  it('reports errors with the same codes as HTTP: an unknown store or pub/sub', async () => {
    const stateErr = await client.state.get('nope', 'k').then(
      () => undefined,
      (e: unknown) => String(e),
    );
    expect(stateErr).to.match(/state store nope is not found/);
    const published = await client.pubsub.publish('nope', 'orders', {}).catch((e: unknown) => e);
    expect(JSON.stringify(published)).to.match(/pubsub nope not found/);
  });
});
