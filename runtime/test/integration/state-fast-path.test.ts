import { expect } from 'chai';
import { componentYaml, eventually, freePort, PrivateRedisServer, SvcdProcess } from '../support/index.js';

/**
 * Get and save without a query string are answered before koa (api/http/fast-routes.ts). A query parameter the
 * routes ignore (`x`) sends the same request through koa: both answers must be the same, byte for byte.
 */
describe('state API fast path against koa', function () {
  this.timeout(30_000);
  let svcd: SvcdProcess;

  before(async () => {
    svcd = await SvcdProcess.start({ args: ['--max-request-size', '1Ki'], resources: { 'store.yaml': componentYaml('store', 'state.in-memory') } });
  });
  after(() => svcd?.dispose());

  /** What a client sees of an answer, the Date header left out. */
  async function seen(res: Response) {
    const headers = [...res.headers].filter(([name]) => name !== 'date');
    return { status: res.status, headers, body: await res.text() };
  }

  async function sameBothWays(method: string, path: string, body?: string) {
    const fast = await seen(await svcd.request(method, path, body));
    const viaKoa = await seen(await svcd.request(method, `${path}?x=1`, body));
    expect(fast, `${method} ${path}`).to.deep.equal(viaKoa);
    return fast;
  }

  it('answers a stored value, a missing key and an unknown store the same way', async () => {
    await sameBothWays('POST', '/v1.0/state/store', JSON.stringify([{ key: 'a/b é', value: { n: 1 } }]));
    const found = await sameBothWays('GET', `/v1.0/state/store/${encodeURIComponent('a/b é')}`);
    expect(found.status).to.equal(200);
    expect(JSON.parse(found.body)).to.deep.equal({ n: 1 });
    expect(found.headers.map(([name]) => name)).to.include.members(['etag', 'content-type', 'content-length']);
    expect((await sameBothWays('GET', '/v1.0/state/store/missing')).status).to.equal(204);
    expect(JSON.parse((await sameBothWays('GET', '/v1.0/state/nostore/k')).body)).to.include({ errorCode: 'ERR_STATE_STORE_NOT_FOUND' });
  });

  it('refuses a malformed, an invalid and an oversized save the same way, and stores nothing', async () => {
    const malformed = await sameBothWays('POST', '/v1.0/state/store', '[{"key":"m","value":1');
    expect(malformed.status).to.equal(400);
    expect(JSON.parse(malformed.body)).to.include({ errorCode: 'ERR_MALFORMED_REQUEST' });
    expect((await sameBothWays('PUT', '/v1.0/state/store', JSON.stringify([{ value: 1 }]))).status).to.equal(400);
    const large = await sameBothWays('POST', '/v1.0/state/store', JSON.stringify([{ key: 'big', value: 'x'.repeat(2048) }]));
    expect(large.status).to.equal(413);
    for (const key of ['m', 'big']) expect((await svcd.request('GET', `/v1.0/state/store/${key}`)).status).to.equal(204);
  });

  it('counts fast answers under their route pattern', async () => {
    const missingReads = async () => {
      const text = await (await fetch(`http://127.0.0.1:${svcd.ports.metrics}/metrics`)).text();
      const line = /svc_http_server_requests_total\{[^}]*method="GET",route="\/v1\.0\/state\/:store\/:key",status="204"[^}]*\} (\d+)/.exec(text);
      return Number(line?.[1] ?? 0);
    };
    const before = await missingReads();
    await (await svcd.request('GET', '/v1.0/state/store/missing')).arrayBuffer();
    expect(await missingReads()).to.equal(before + 1);
  });

  it('answers the same error both ways while the store is down, and serves again once it is back', async function () {
    this.timeout(90_000);
    const port = await freePort();
    let redis = await PrivateRedisServer.start(port);
    const down = await SvcdProcess.start({ resources: { 'cache.yaml': componentYaml('cache', 'state.redis', { redisHost: `127.0.0.1:${port}` }) } });
    try {
      expect((await down.request('POST', '/v1.0/state/cache', [{ key: 'k', value: 1 }])).status).to.equal(204);
      await redis.kill();
      const fast = await seen(await down.request('GET', '/v1.0/state/cache/k'));
      const viaKoa = await seen(await down.request('GET', '/v1.0/state/cache/k?x=1'));
      expect(fast.status).to.equal(500);
      expect(JSON.parse(fast.body)).to.include({ errorCode: 'ERR_STATE_GET' });
      expect({ status: fast.status, body: fast.body }).to.deep.equal({ status: viaKoa.status, body: viaKoa.body });
      expect((await down.request('GET', '/v1.0/healthz')).status, 'svcd stays up').to.equal(204);
      redis = await PrivateRedisServer.start(port);
      await eventually('saves through the fast path again', async () => (await down.request('POST', '/v1.0/state/cache', [{ key: 'k', value: 2 }])).status === 204, 30_000);
      expect(await (await down.request('GET', '/v1.0/state/cache/k')).text()).to.equal('2');
    } finally {
      await down.dispose();
      await redis.stop();
    }
  });
});
