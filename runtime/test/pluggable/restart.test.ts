/**
 * A pluggable component killed and restarted under traffic: svcd answers fast 500s naming the component while it
 * is gone, then reconnects and initialises it again (it lost its per-instance state) without restarting.
 */
import { expect } from 'chai';
import { componentYaml, eventually, SvcdProcess } from '../support/index.js';
import { expectError, expectStatus, getRaw } from '../integration/state-http.js';
import { ExampleComponent, tempSocketsFolder } from '../support/example-component.js';

describe('svcd and a pluggable component that crashes and comes back', function () {
  this.timeout(60_000);
  let folder: string;
  let component: ExampleComponent;
  let svcd: SvcdProcess;

  before(async () => {
    folder = tempSocketsFolder();
    component = await ExampleComponent.start({ folder, name: 'memstore' });
    svcd = await SvcdProcess.start({ socketsFolder: folder, args: ['--pluggable-ping-interval', '200ms'], resources: { 'orders.yaml': componentYaml('orders', 'state.memstore') } });
  });
  after(async () => {
    await svcd?.stop();
    await component?.stop();
  });

  it('fails requests fast with ERR_COMPONENT_UNAVAILABLE, then recovers and re-initialises the component', async () => {
    // Steady traffic for the whole test: every answer must be a success or the clear unavailable error.
    const seen: string[] = [];
    let traffic = true;
    const loop = (async () => {
      for (let i = 0; traffic; i++) {
        const res = await svcd.request('POST', '/v1.0/state/orders', [{ key: `t${i % 10}`, value: i }]);
        const text = await res.text();
        seen.push(res.status === 204 ? 'ok' : `${res.status} ${(JSON.parse(text) as { errorCode: string }).errorCode}`);
      }
    })();

    await expectStatus(await svcd.request('POST', '/v1.0/state/orders', [{ key: 'before', value: 1 }]), 204);
    await component.kill();

    const body = await expectError(await svcd.request('GET', '/v1.0/state/orders/before'), 500, 'ERR_COMPONENT_UNAVAILABLE');
    expect(body.message).to.include('orders').and.include('memstore.sock');
    await eventually('outbound health reports the component', async () => {
      const res = await svcd.request('GET', '/v1.0/healthz/outbound');
      return res.status === 500 && (await res.text()).includes('orders');
    });

    component = await ExampleComponent.start({ folder, name: 'memstore' });
    await eventually('state calls succeed again', async () => (await svcd.request('GET', '/v1.0/state/orders/before')).status !== 500);
    // The new process knows nothing of the old data; it accepted calls, so svcd sent Init again first.
    expect(await getRaw(svcd, 'orders', 'before')).to.equal(undefined);
    await expectStatus(await svcd.request('POST', '/v1.0/state/orders', [{ key: 'after', value: 2 }]), 204);
    expect(await getRaw(svcd, 'orders', 'after')).to.equal('2');
    await eventually('outbound health is green again', async () => (await svcd.request('GET', '/v1.0/healthz/outbound')).status === 204);

    traffic = false;
    await loop;
    expect(new Set(seen)).to.include('ok');
    expect([...new Set(seen)].filter((s) => s !== 'ok')).to.deep.equal(['500 ERR_COMPONENT_UNAVAILABLE']);
    expect(svcd.output).to.include('initialised it again');
  });
});
