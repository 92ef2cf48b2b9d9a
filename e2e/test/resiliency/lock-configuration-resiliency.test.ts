/**
 * A lock store's and a configuration store's outbound Resiliency policy on a real svcd, both on a Redis reached
 * through a proxy the test takes down: the circuit breaker opens and answers 503 at once, then closes once the
 * store is back.
 */
import { componentYaml, SvcdProcess, TcpProxy, TEST_REDIS_HOST } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { storeResiliencyYaml } from '../support/store-resiliency.js';
import { randomUUID } from 'node:crypto';

const RESILIENCY = storeResiliencyYaml(['locks', 'config'], 1);

describe('Resiliency for lock and configuration stores on a Redis that goes away (real svcd)', function () {
  this.timeout(60_000);
  const appId = `resil-locks-${randomUUID()}`;
  let proxy: TcpProxy;
  let svcd: SvcdProcess;

  before(async () => {
    const [host, port] = TEST_REDIS_HOST.split(':');
    proxy = await TcpProxy.start({ host: host!, port: Number(port) });
    const redisHost = `127.0.0.1:${proxy.port}`;
    svcd = await SvcdProcess.start({
      appId,
      resources: {
        'locks.yaml': componentYaml('locks', 'lock.redis', { redisHost }),
        'config.yaml': componentYaml('config', 'configuration.redis', { redisHost }),
        'resiliency.yaml': RESILIENCY,
      },
    });
  });
  after(async () => {
    await svcd?.dispose();
    await proxy?.down();
  });

  const lock = () => svcd.request('POST', '/v1.0-alpha1/lock/locks', { resourceId: appId, lockOwner: randomUUID(), expiryInSeconds: 1 });
  const read = () => svcd.request('GET', `/v1.0/configuration/config?key=${appId}`);

  it('opens each store breaker while Redis is away (503 at once), and closes it once Redis is back', async () => {
    expect((await lock()).status).to.equal(200);
    expect((await read()).status).to.equal(204);

    await proxy.down();
    for (const call of [lock, read]) {
      expect((await call()).status).to.be.oneOf([500, 503]);
      const open = await call();
      expect([open.status, ((await open.json()) as { errorCode: string }).errorCode]).to.deep.equal([503, 'ERR_CIRCUIT_BREAKER_OPEN']);
    }

    await proxy.up();
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect((await lock()).status).to.equal(200);
    expect((await read()).status).to.equal(204);
    expect(svcd.output).to.match(/circuit breaker changed state/);
  });
});
