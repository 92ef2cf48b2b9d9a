import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createHttpApp, type HttpApiHandler } from '../../src/api/http/app.js';
import { healthRoutes } from '../../src/api/http/routes/health.js';

/**
 * The health probe is answered before koa (a public fast route: no API token), the same as koa answers it, and
 * koa, made on the first request the fast paths leave, still asks for the token everywhere else.
 */
describe('health routes, answered before koa', () => {
  let ready = false;
  /** How often koa mounted its routes: it does so when it is made. */
  let koaMade = 0;
  let handler: HttpApiHandler;
  let server: http.Server;
  let base: string;

  before(async () => {
    handler = createHttpApp({
      apiToken: 'the-token',
      log: pino({ level: 'silent' }),
      groups: [healthRoutes({ ready: () => ready, outboundProblems: () => Promise.resolve([]) }), { mount: () => void (koaMade += 1) }],
    });
    server = http.createServer(handler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  /** Status, content type and body, as a client sees them. */
  const seen = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, { headers });
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
  };

  it('answers 500 with the error body before ready and 204 once ready, without a token, the same through koa', async () => {
    ready = false;
    const before = await seen('/v1.0/healthz');
    expect(before.status).to.equal(500);
    expect(JSON.parse(before.body)).to.deep.equal({ errorCode: 'ERR_HEALTH_NOT_READY', message: 'svcd is not ready' });
    ready = true;
    const after = await seen('/v1.0/healthz');
    expect(after).to.deep.equal({ status: 204, type: null, body: '' });
    expect(koaMade, 'koa is made for the probe').to.equal(0);
    ready = false;
    expect(await seen('/v1.0/healthz?through=koa')).to.deep.equal(before);
    expect(koaMade).to.equal(1);
    ready = true;
    expect(await seen('/v1.0/healthz?through=koa')).to.deep.equal(after);
    expect((await seen('/v1.0/healthz/outbound')).status).to.equal(204);
  });

  it('leaves every other route to koa, which asks for the token', async () => {
    handler.prepare();
    const refused = await seen('/v1.0/state/store/k');
    expect(refused.status).to.equal(401);
    expect(JSON.parse(refused.body)).to.include({ errorCode: 'ERR_UNAUTHORIZED' });
    expect((await seen('/v1.0/no-such-route', { 'dapr-api-token': 'the-token' })).status).to.equal(404);
  });
});
