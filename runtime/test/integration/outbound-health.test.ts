/**
 * `/v1.0/healthz/outbound` follows the servers behind the components: 500 naming the component while its server
 * is down, 204 again once it is back, without restarting svcd.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { componentYaml, dropTestPostgresTable, eventually, freePort, PrivateRedisServer, SvcdProcess, TcpProxy, TEST_POSTGRES_URL } from '../support/index.js';

/** True when outbound health is 500 ERR_OUTBOUND_HEALTH_NOT_READY and the message names the component. */
async function reportsDown(svcd: SvcdProcess, component: string): Promise<boolean> {
  const res = await svcd.request('GET', '/v1.0/healthz/outbound');
  if (res.status !== 500) return false;
  const body = (await res.json()) as { errorCode: string; message: string };
  return body.errorCode === 'ERR_OUTBOUND_HEALTH_NOT_READY' && body.message.includes(`component '${component}'`);
}

async function reportsUp(svcd: SvcdProcess): Promise<boolean> {
  return (await svcd.request('GET', '/v1.0/healthz/outbound')).status === 204;
}

describe('outbound health follows the backing servers', function () {
  this.timeout(60_000);

  it('Redis: 500 naming the component while the server is down, 204 once it is back', async () => {
    const port = await freePort();
    let redis = await PrivateRedisServer.start(port);
    const svcd = await SvcdProcess.start({ resources: { 'cache.yaml': componentYaml('cache', 'state.redis', { redisHost: `127.0.0.1:${port}` }) } });
    try {
      expect(await reportsUp(svcd)).to.equal(true);
      await redis.kill();
      await eventually('outbound health reports cache', () => reportsDown(svcd, 'cache'), 5_000);
      // svcd itself stays up and ready; only the outbound check fails.
      expect((await svcd.request('GET', '/v1.0/healthz')).status).to.equal(204);
      redis = await PrivateRedisServer.start(port);
      await eventually('outbound health is green again', () => reportsUp(svcd), 10_000);
    } finally {
      await svcd.dispose();
      await redis.stop();
    }
  });

  it('Redis as the actor store: every connection of svcd (store, placement heartbeat, change subscriber) handles the outage', async () => {
    // Found by an outside run: the placement heartbeat's own connection had no error listener, and svcd printed
    // "[ioredis] Unhandled error event: ... ECONNREFUSED" for each of its reconnects while Redis was down.
    const port = await freePort();
    let redis = await PrivateRedisServer.start(port);
    const svcd = await SvcdProcess.start({ resources: { 'wf.yaml': componentYaml('wf', 'state.redis', { redisHost: `127.0.0.1:${port}`, actorStateStore: 'true' }) } });
    try {
      await redis.kill();
      await eventually('outbound health reports wf', () => reportsDown(svcd, 'wf'), 5_000);
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // several reconnect attempts of each connection
      // While it is down a state call answers its error (it waited through growing reconnect delays before).
      const failed = await svcd.request('POST', '/v1.0/state/wf', [{ key: 'k', value: 1 }]);
      expect(failed.status).to.equal(500);
      expect(((await failed.json()) as { errorCode: string }).errorCode).to.equal('ERR_STATE_SAVE');
      redis = await PrivateRedisServer.start(port);
      await eventually('state saves again', async () => (await svcd.request('POST', '/v1.0/state/wf', [{ key: 'k', value: 2 }])).status === 204, 5_000);
      await eventually('outbound health is green again', () => reportsUp(svcd), 10_000);
      expect(svcd.output).to.not.include('Unhandled error event');
    } finally {
      await svcd.dispose();
      await redis.stop();
    }
  });

  it('PostgreSQL: 500 naming the component while the server cannot be reached, 204 once it can', async () => {
    const target = new URL(TEST_POSTGRES_URL);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(TEST_POSTGRES_URL);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const table = `health_${randomBytes(4).toString('hex')}`;
    const svcd = await SvcdProcess.start({ resources: { 'db.yaml': componentYaml('orders', 'state.postgresql', { connectionString: viaProxy.toString(), tableName: table }) } });
    try {
      expect(await reportsUp(svcd)).to.equal(true);
      await proxy.down();
      await eventually('outbound health reports orders', () => reportsDown(svcd, 'orders'), 5_000);
      await proxy.up();
      await eventually('outbound health is green again', () => reportsUp(svcd), 5_000);
    } finally {
      await svcd.dispose();
      await proxy.down();
      await dropTestPostgresTable(table);
    }
  });
});
