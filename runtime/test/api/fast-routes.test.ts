import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fastPath, type FastRoute } from '../../src/api/http/fast-routes.js';

/** A server answering through `fastPath`, with a fallback that says it was reached (koa's place). */
async function serve(routes: FastRoute[], authorized = () => true) {
  const observed: [string, string, number][] = [];
  const fast = fastPath(routes, {
    authorized,
    failed: (err) => ({ status: 500, body: JSON.stringify({ errorCode: 'ERROR', message: (err as Error).message }) }),
    observe: (method, route, status) => observed.push([method, route, status]),
  });
  const server = http.createServer((req, res) => {
    if (!fast(req, res)) res.writeHead(299).end('fallback');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, observed, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A GET of exactly this URL (fetch normalises a trailing `?` away). */
function rawGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    http
      .get({ hostname, port, path: url.slice(url.indexOf('/', 'http://'.length)) }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

const echoParams: FastRoute = {
  method: 'GET',
  pattern: '/v1.0/state/:store/:key',
  answer: (params) => Promise.resolve({ status: 200, headers: { ETag: '7' }, body: JSON.stringify(params) }),
};

describe('HTTP fast routes (answered before koa)', () => {
  it('takes exactly the plain request of a route, with its parameters decoded as the router decodes them', async () => {
    const s = await serve([echoParams]);
    try {
      const res = await fetch(`${s.base}/v1.0/state/st/a%2Fb%20caf%C3%A9`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(res.headers.get('etag')).to.equal('7');
      expect(await res.json()).to.deep.equal({ store: 'st', key: 'a/b café' });
      // A malformed escape is passed on as sent (the router's safeDecodeURIComponent does the same).
      expect(await (await fetch(`${s.base}/v1.0/state/st/100%`)).json()).to.deep.equal({ store: 'st', key: '100%' });
      // An empty query is the plain case (the Dapr JS SDK ends its URLs with `?`; fetch would drop it).
      expect(await rawGet(`${s.base}/v1.0/state/st/k?`)).to.deep.equal({ status: 200, body: '{"store":"st","key":"k"}' });
      expect(s.observed).to.deep.equal([
        ['GET', '/v1.0/state/:store/:key', 200],
        ['GET', '/v1.0/state/:store/:key', 200],
        ['GET', '/v1.0/state/:store/:key', 200],
      ]);
    } finally {
      await s.close();
    }
  });

  it('leaves everything else to koa: a query, another method, another spelling of the path, an empty parameter', async () => {
    const s = await serve([echoParams]);
    try {
      for (const [method, path] of [
        ['GET', '/v1.0/state/st/k?metadata.a=1'],
        ['GET', '/v1.0/state/st/k?x'],
        ['HEAD', '/v1.0/state/st/k'],
        ['DELETE', '/v1.0/state/st/k'],
        ['GET', '/v1.0/state/st/k/'],
        ['GET', '/V1.0/state/st/k'],
        ['GET', '/v1.0/state//k'],
        ['GET', '/v1.0/state/st'],
        ['GET', '/v1.0/state/st/k/more'],
      ] as const) {
        const res = await fetch(`${s.base}${path}`, { method });
        expect(res.status, `${method} ${path}`).to.equal(299);
        await res.arrayBuffer();
      }
      expect(s.observed).to.deep.equal([]);
    } finally {
      await s.close();
    }
  });

  it('leaves a request without the API token to koa (which refuses it)', async () => {
    const s = await serve([echoParams], () => false);
    try {
      expect((await fetch(`${s.base}/v1.0/state/st/k`)).status).to.equal(299);
    } finally {
      await s.close();
    }
  });

  it('answers a failed route with the error answer, counted with its status', async () => {
    const failing: FastRoute = { method: 'POST', pattern: '/v1.0/state/:store', answer: () => Promise.reject(new Error('store down')) };
    const s = await serve([failing]);
    try {
      const res = await fetch(`${s.base}/v1.0/state/st`, { method: 'POST', body: '[]' });
      expect(res.status).to.equal(500);
      expect(await res.json()).to.deep.equal({ errorCode: 'ERROR', message: 'store down' });
      expect(s.observed).to.deep.equal([['POST', '/v1.0/state/:store', 500]]);
    } finally {
      await s.close();
    }
  });

  it('answers 500 when a route returns a header unfit for HTTP, and keeps serving', async () => {
    const badHeader: FastRoute = { method: 'GET', pattern: '/v1.0/state/:store/:key', answer: () => Promise.resolve({ status: 200, headers: { 'metadata.x': 'a\nb' }, body: '1' }) };
    const s = await serve([badHeader]);
    try {
      const res = await fetch(`${s.base}/v1.0/state/st/k`);
      expect(res.status).to.equal(500);
      expect(await res.json()).to.have.property('errorCode', 'ERROR');
      expect((await fetch(`${s.base}/v1.0/state/st/k`)).status).to.equal(500);
      expect(s.observed.map(([, , status]) => status)).to.deep.equal([500, 500]);
    } finally {
      await s.close();
    }
  });
});
