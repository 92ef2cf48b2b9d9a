/**
 * Service invocation over HTTP between real svcd processes: app B (a plain HTTP server) behind svcd B, called by
 * svcd A (no app of its own) through `/v1.0/invoke/…` and the `dapr-app-id` header form. What the app receives,
 * what comes back, svcd's own errors, bodies streamed both ways, and a target that goes away.
 */
import { eventually, memoryMiB, SvcdProcess, tempFolder } from '@svc/runtime/test-support';
import { expect } from 'chai';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { EchoApp, invocationConfiguration, type SeenRequest } from '../support/echo-app.js';

describe('service invocation over HTTP (two svcd, a plain HTTP app)', function () {
  this.timeout(120_000);
  const app = new EchoApp();
  let a: SvcdProcess;
  let b: SvcdProcess;
  let resources: Record<string, string>;

  before(async () => {
    await app.start();
    resources = { 'configuration.yaml': invocationConfiguration(path.join(tempFolder('registry-'), 'registry.db')) };
    b = await SvcdProcess.start({ appId: 'orders', resources, args: ['--app-port', String(app.port)] });
    a = await SvcdProcess.start({ appId: 'checkout', resources });
  });
  after(async () => {
    await Promise.all([a?.dispose(), b?.dispose()]);
    await app.stop();
  });

  const seenBody = async (res: Response): Promise<SeenRequest> => (await res.json()) as SeenRequest;

  it('passes verb, path, query, headers and body to the app, and says who calls; forged and private headers stay behind', async () => {
    const res = await fetch(`${a.httpUrl}/v1.0/invoke/orders/method/orders/42/items?x=1&y=a%20b`, {
      method: 'POST',
      headers: {
        'content-type': 'text/plain',
        'x-custom': 'kept',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        'dapr-caller-app-id': 'forged',
        'svc-caller-app-id': 'forged',
        'dapr-api-token': 'the caller sidecar token',
      },
      body: 'hello orders',
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-app')).to.equal('echo');
    const seen = await seenBody(res);
    expect(seen.method).to.equal('POST');
    expect(seen.url).to.equal('/orders/42/items?x=1&y=a%20b');
    expect(seen.text).to.equal('hello orders');
    expect(seen.headers['content-type']).to.equal('text/plain');
    expect(seen.headers['x-custom']).to.equal('kept');
    expect(seen.headers.traceparent).to.equal('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(seen.headers['dapr-caller-app-id']).to.equal('checkout');
    expect(seen.headers['dapr-caller-namespace']).to.equal('default');
    expect(seen.headers['dapr-callee-app-id']).to.equal('orders');
    expect(seen.headers).to.not.have.property('svc-caller-app-id');
    expect(seen.headers).to.not.have.property('dapr-api-token');
  });

  it('works for every verb, and returns the app status and headers as they are', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await fetch(`${a.httpUrl}/v1.0/invoke/orders/method/verbs`, { method, ...(method === 'PUT' || method === 'PATCH' ? { body: 'x' } : {}) });
      expect((await seenBody(res)).method, method).to.equal(method);
    }
    const head = await fetch(`${a.httpUrl}/v1.0/invoke/orders/method/verbs`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    const teapot = await fetch(`${a.httpUrl}/v1.0/invoke/orders/method/status/418`);
    expect(teapot.status).to.equal(418);
    expect(teapot.headers.get('x-app')).to.equal('echo');
    expect(await teapot.text()).to.equal('status 418');
  });

  it('takes the dapr-app-id and svc-app-id header form on any path, and <app-id>.<namespace> targets', async () => {
    const byDapr = await seenBody(await fetch(`${a.httpUrl}/shipments/7?z=2`, { headers: { 'dapr-app-id': 'orders' } }));
    expect(byDapr.url).to.equal('/shipments/7?z=2');
    expect(byDapr.headers).to.not.have.property('dapr-app-id');
    const bySvc = await seenBody(await fetch(`${a.httpUrl}/v1.0/state/looks-like-an-api`, { method: 'POST', headers: { 'svc-app-id': 'orders' }, body: '{}' }));
    expect(bySvc.url).to.equal('/v1.0/state/looks-like-an-api');
    const namespaced = await seenBody(await fetch(`${a.httpUrl}/v1.0/invoke/orders.default/method/ns`));
    expect(namespaced.url).to.equal('/ns');
  });

  it('invokes its own app directly (no second sidecar)', async () => {
    const seen = await seenBody(await fetch(`${b.httpUrl}/v1.0/invoke/orders/method/self`));
    expect(seen.url).to.equal('/self');
    expect(seen.headers['dapr-caller-app-id']).to.equal('orders');
  });

  it("answers svcd's own errors with the catalogue's code and status", async () => {
    const unknown = await fetch(`${a.httpUrl}/v1.0/invoke/nobody/method/x`);
    expect(unknown.status).to.equal(404);
    expect(await unknown.json()).to.include({ errorCode: 'ERR_DIRECT_INVOKE_APP_NOT_FOUND' });
    const otherNamespace = await fetch(`${a.httpUrl}/v1.0/invoke/orders.elsewhere/method/x`);
    expect(await otherNamespace.json()).to.include({ errorCode: 'ERR_DIRECT_INVOKE_APP_NOT_FOUND' });
    const invalid = await fetch(`${a.httpUrl}/v1.0/invoke/bad%20id/method/x`);
    expect(invalid.status).to.equal(400);
    expect(await invalid.json()).to.include({ errorCode: 'ERR_MALFORMED_REQUEST' });
    const noMethod = await fetch(`${a.httpUrl}/v1.0/invoke/orders`);
    expect(noMethod.status).to.equal(400);
    const noApp = await fetch(`${a.httpUrl}/v1.0/invoke/checkout/method/x`);
    expect(noApp.status).to.equal(500);
    expect(await noApp.json()).to.include({ errorCode: 'ERR_APP_CHANNEL_NIL' });
  });

  it('streams a large body both ways without holding it: 1 GiB up through two sidecars, RSS flat', async () => {
    const size = 1024 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, 7);
    let sent = 0;
    const body = new Readable({
      read() {
        if (sent >= size) this.push(null);
        else {
          sent += chunk.length;
          this.push(chunk);
        }
      },
    });
    const baseline = { a: memoryMiB(a.child.pid!), b: memoryMiB(b.child.pid!) };
    let peak = { ...baseline };
    const sampler = setInterval(() => {
      peak = { a: Math.max(peak.a, memoryMiB(a.child.pid!)), b: Math.max(peak.b, memoryMiB(b.child.pid!)) };
    }, 50);
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${a.httpUrl}/v1.0/invoke/orders/method/upload`, { method: 'PUT', headers: { 'content-length': String(size) } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      body.pipe(req);
    });
    clearInterval(sampler);
    expect(answer.status).to.equal(200);
    expect((JSON.parse(answer.text) as SeenRequest).bytes).to.equal(size);
    expect(peak.a - baseline.a, `svcd A grew from ${baseline.a} to ${peak.a} MiB`).to.be.below(150);
    expect(peak.b - baseline.b, `svcd B grew from ${baseline.b} to ${peak.b} MiB`).to.be.below(150);
  });

  it('streams the answer as the app writes it', async () => {
    const res = await fetch(`${a.httpUrl}/v1.0/invoke/orders/method/stream/20`);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).to.equal(false);
    let total = (first.value as Uint8Array).length;
    for (let r = await reader.read(); !r.done; r = await reader.read()) total += (r.value as Uint8Array).length;
    expect(total).to.equal(20 * 64 * 1024);
  });

  it('cuts the answer when the target sidecar dies mid-stream, then answers unreachable', async () => {
    const target = await SvcdProcess.start({ appId: 'dying', resources, args: ['--app-port', String(app.port)] });
    const res = await fetch(`${a.httpUrl}/v1.0/invoke/dying/method/stream/200`);
    expect(res.status).to.equal(200);
    const reader = res.body!.getReader();
    await reader.read();
    target.child.kill('SIGKILL');
    const outcome = await (async () => {
      try {
        for (let r = await reader.read(); !r.done; r = await reader.read());
        return 'ended';
      } catch {
        return 'cut';
      }
    })();
    expect(outcome).to.equal('cut');
    const after = await fetch(`${a.httpUrl}/v1.0/invoke/dying/method/x`);
    expect(after.status).to.equal(503);
    expect(await after.json()).to.include({ errorCode: 'ERR_DIRECT_INVOKE_UNREACHABLE' });
    await target.dispose();
  });

  it('counts calls in metrics and lists the resolved peers in /v1.0/metadata', async () => {
    await fetch(`${a.httpUrl}/v1.0/invoke/orders/method/counted`);
    const metrics = await (await fetch(`http://127.0.0.1:${a.ports.metrics}/metrics`)).text();
    expect(metrics).to.match(/svc_invocation_calls_total\{[^}]*target="orders"[^}]*status="200"[^}]*\} [1-9]/);
    const served = await (await fetch(`http://127.0.0.1:${b.ports.metrics}/metrics`)).text();
    expect(served).to.match(/svc_invocation_served_total\{[^}]*caller="checkout"[^}]*status="200"[^}]*\} [1-9]/);
    const metadata = (await (await fetch(`${a.httpUrl}/v1.0/metadata`)).json()) as { invocation: { nameResolution: string; resolvedPeers: { appId: string; addresses: string[] }[] } };
    expect(metadata.invocation.nameResolution).to.equal('sqlite');
    expect(metadata.invocation.resolvedPeers.find((p) => p.appId === 'orders')?.addresses).to.have.length(1);
  });

  it('spreads calls over the replicas of the target, and drops one that stopped', async () => {
    const second = new EchoApp();
    await second.start();
    const replica = await SvcdProcess.start({ appId: 'orders', resources, args: ['--app-port', String(second.port)] });
    try {
      await eventually('both replicas answer', async () => {
        await fetch(`${a.httpUrl}/v1.0/invoke/orders/method/spread`);
        return second.seen.some((s) => s.url === '/spread') && app.seen.filter((s) => s.url === '/spread').length > 0;
      });
      await replica.stop();
      const before = second.seen.length;
      for (let i = 0; i < 10; i++) expect((await fetch(`${a.httpUrl}/v1.0/invoke/orders/method/after-stop`)).status).to.equal(200);
      expect(second.seen.length).to.equal(before);
    } finally {
      await replica.dispose();
      await second.stop();
    }
  });

  it('needs the API token when svcd asks for one, and never forwards it', async () => {
    const guarded = await SvcdProcess.start({ appId: 'guarded', resources, env: { SVC_API_TOKEN: 'sekret' } });
    try {
      const refused = await fetch(`${guarded.httpUrl}/v1.0/invoke/orders/method/x`);
      expect(refused.status).to.equal(401);
      const headerForm = await fetch(`${guarded.httpUrl}/x`, { headers: { 'dapr-app-id': 'orders' } });
      expect(headerForm.status).to.equal(401);
      const ok = await fetch(`${guarded.httpUrl}/v1.0/invoke/orders/method/tokened`, { headers: { 'svc-api-token': 'sekret' } });
      expect(ok.status).to.equal(200);
      expect((await seenBody(ok)).headers).to.not.have.property('svc-api-token');
    } finally {
      await guarded.dispose();
    }
  });

});
