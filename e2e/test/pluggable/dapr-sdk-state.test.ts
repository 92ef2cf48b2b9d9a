/**
 * The real @dapr/dapr DaprClient (HTTP) against svcd, with state held by a pluggable component on a Unix socket:
 * an SDK app sees a pluggable store exactly like a built-in one.
 */
import { CommunicationProtocolEnum, DaprClient, LogLevel } from '@dapr/dapr';
import { ExampleComponent, SvcdProcess, componentYaml, tempSocketsFolder } from '@svc/runtime/test-support';
import { expect } from 'chai';

describe('Dapr JS SDK state client against svcd with a pluggable state store', function () {
  this.timeout(60_000);
  let component: ExampleComponent;
  let svcd: SvcdProcess;
  let client: DaprClient;

  before(async () => {
    const folder = tempSocketsFolder();
    component = await ExampleComponent.start({ folder, name: 'memstore' });
    svcd = await SvcdProcess.start({ socketsFolder: folder, resources: { 'orders.yaml': componentYaml('orders', 'state.memstore') } });
    client = new DaprClient({
      daprHost: '127.0.0.1',
      daprPort: String(svcd.ports.http),
      communicationProtocol: CommunicationProtocolEnum.HTTP,
      logger: { level: LogLevel.Error },
    });
  });
  after(async () => {
    await svcd?.stop();
    await component?.stop();
  });

  it('saves, reads, reads in bulk, runs a transaction and deletes', async () => {
    await client.state.save('orders', [
      { key: 'o1', value: { qty: 1 } },
      { key: 'o2', value: 'two' },
    ]);
    expect(await client.state.get('orders', 'o1')).to.deep.equal({ qty: 1 });
    const bulk = await client.state.getBulk('orders', ['o1', 'o2']);
    expect(bulk.map((i): unknown[] => [String(i.key), i.data as unknown])).to.have.deep.members([
      ['o1', { qty: 1 }],
      ['o2', 'two'],
    ]);
    await client.state.transaction('orders', [
      { operation: 'upsert', request: { key: 'o3', value: 3 } },
      { operation: 'delete', request: { key: 'o1' } },
    ]);
    expect(await client.state.get('orders', 'o3')).to.equal(3);
    expect(await client.state.get('orders', 'o1')).to.equal('');
    await client.state.delete('orders', 'o3');
    expect(await client.state.get('orders', 'o3')).to.equal('');
  });

  it('reports a stale ETag from the component as an error and keeps the stored value', async () => {
    await client.state.save('orders', [{ key: 'e1', value: 'first' }]);
    const res = await svcd.request('GET', '/v1.0/state/orders/e1');
    const etag = res.headers.get('etag')!;
    await res.arrayBuffer();
    await client.state.save('orders', [{ key: 'e1', value: 'second', etag }]);
    const stale = await client.state.save('orders', [{ key: 'e1', value: 'third', etag }]);
    expect(stale.error, 'the SDK reports the 409').to.be.instanceOf(Error);
    expect(stale.error?.message).to.include('ERR_STATE_ETAG_MISMATCH');
    expect(await client.state.get('orders', 'e1')).to.equal('second');
  });
});
