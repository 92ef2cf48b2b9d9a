/**
 * A component's outbound Resiliency policy on a real svcd: a Redis state store reached through a proxy the test
 * takes down. Reads are retried, the circuit breaker opens after the failures its trip rule names and then answers
 * at once without touching the store, and closes again once a probe after its timeout succeeds.
 */
import { componentYaml, SvcdProcess, TcpProxy, TEST_REDIS_HOST } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { storeResiliencyYaml } from '../support/store-resiliency.js';

const RESILIENCY = storeResiliencyYaml(['store'], 2);

describe('Resiliency for a component: a Redis state store that goes away (real svcd)', function () {
  this.timeout(60_000);
  let proxy: TcpProxy;
  let svcd: SvcdProcess;

  before(async () => {
    const [host, port] = TEST_REDIS_HOST.split(':');
    proxy = await TcpProxy.start({ host: host!, port: Number(port) });
    svcd = await SvcdProcess.start({
      appId: `resil-${process.pid}`,
      resources: { 'store.yaml': componentYaml('store', 'state.redis', { redisHost: `127.0.0.1:${proxy.port}` }), 'resiliency.yaml': RESILIENCY },
    });
  });
  after(async () => {
    await svcd?.dispose();
    await proxy?.down();
  });

  const get = () => fetch(`${svcd.httpUrl}/v1.0/state/store/k`);

  it('opens the breaker while the store is away, answers 503 while open, closes once the store is back', async () => {
    const saved = await fetch(`${svcd.httpUrl}/v1.0/state/store`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[{"key":"k","value":"v"}]' });
    expect(saved.status).to.equal(204);
    expect(await (await get()).json()).to.equal('v');

    await proxy.down();
    const failed = await get();
    expect(failed.status).to.be.oneOf([500, 503]);
    const open = await get();
    expect(open.status).to.equal(503);
    expect(await open.json()).to.include({ errorCode: 'ERR_CIRCUIT_BREAKER_OPEN' });
    expect((await get()).status).to.equal(503);

    await proxy.up();
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const back = await get();
    expect(back.status).to.equal(200);
    expect(await back.json()).to.equal('v');
    expect(svcd.output).to.match(/circuit breaker changed state/);
  });
});
