/**
 * What guards service invocation between real svcd processes: the receiving sidecar's access control (from its
 * Configuration) applied to the authenticated caller, the shared secret that authenticates sidecars, and the
 * caller's Resiliency policies (retries only where safe, timeouts, a circuit breaker opening and closing).
 */
import { eventually, SvcdProcess, tempFolder } from '@svc/runtime/test-support';
import { expect } from 'chai';
import http from 'node:http';
import path from 'node:path';
import { EchoApp, invocationConfiguration } from '../support/echo-app.js';

const ACCESS_CONTROL = `  accessControl:
    defaultAction: deny
    policies:
      - appId: checkout
        defaultAction: deny
        operations:
          - name: /public/**
            httpVerb: [GET]
            action: allow
          - name: /public/fail-times/**
            httpVerb: [POST]
            action: allow
`;

const RESILIENCY = `apiVersion: svc.io/v1alpha1
kind: Resiliency
metadata:
  name: calls
spec:
  policies:
    timeouts:
      quick: 300ms
    retries:
      threeTimes:
        policy: constant
        duration: 20ms
        maxRetries: 3
    circuitBreakers:
      breaker:
        maxRequests: 1
        timeout: 1s
        trip: consecutiveFailures >= 3
  targets:
    apps:
      vault:
        retry: threeTimes
        timeout: quick
      fragile:
        circuitBreaker: breaker
`;

/** A request with its path sent exactly as written (fetch would resolve `..`). */
function rawGet(base: string, rawPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http.get(`${base}${rawPath}`, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

describe('service invocation: access control, caller identity, resiliency (real svcd processes)', function () {
  this.timeout(120_000);
  const vaultApp = new EchoApp();
  const fragileApp = new EchoApp();
  let registry: string;
  let vault: SvcdProcess;
  let fragile: SvcdProcess;
  let checkout: SvcdProcess;

  before(async () => {
    await Promise.all([vaultApp.start(), fragileApp.start()]);
    registry = path.join(tempFolder('registry-'), 'registry.db');
    vault = await SvcdProcess.start({ appId: 'vault', resources: { 'configuration.yaml': invocationConfiguration(registry, ACCESS_CONTROL) }, args: ['--app-port', String(vaultApp.port)] });
    fragile = await SvcdProcess.start({ appId: 'fragile', resources: { 'configuration.yaml': invocationConfiguration(registry) }, args: ['--app-port', String(fragileApp.port)] });
    checkout = await SvcdProcess.start({ appId: 'checkout', resources: { 'configuration.yaml': invocationConfiguration(registry), 'resiliency.yaml': RESILIENCY } });
  });
  after(async () => {
    await Promise.all([vault?.dispose(), fragile?.dispose(), checkout?.dispose()]);
    await Promise.all([vaultApp.stop(), fragileApp.stop()]);
  });

  it("allows what the callee's policy allows the authenticated caller", async () => {
    const res = await fetch(`${checkout.httpUrl}/v1.0/invoke/vault/method/public/prices`);
    expect(res.status).to.equal(200);
  });

  it('refuses the rest with 403 ERR_PERMISSION_DENIED, logging who called what; a path spelt around the rule is refused too', async () => {
    const seenBefore = vaultApp.seen.length;
    const post = await fetch(`${checkout.httpUrl}/v1.0/invoke/vault/method/public/prices`, { method: 'POST', body: '{}' });
    expect(post.status).to.equal(403);
    const body = (await post.json()) as { errorCode: string; message: string };
    expect(body.errorCode).to.equal('ERR_PERMISSION_DENIED');
    expect(body.message).to.contain('checkout');
    const sneaky = await rawGet(checkout.httpUrl, '/v1.0/invoke/vault/method/public/../admin/keys');
    expect(sneaky.status).to.equal(403);
    expect(vaultApp.seen.length).to.equal(seenBefore);
    await eventually('the denial is in the callee log with the caller', () =>
      Promise.resolve(vault.output.split('\n').some((line) => line.includes('invocation denied by access control') && line.includes('"callerAppId":"checkout"'))),
    );
  });

  it('refuses a caller the policy does not name (global defaultAction deny)', async () => {
    const stranger = await SvcdProcess.start({ appId: 'stranger', resources: { 'configuration.yaml': invocationConfiguration(registry) } });
    try {
      const res = await fetch(`${stranger.httpUrl}/v1.0/invoke/vault/method/public/prices`);
      expect(res.status).to.equal(403);
    } finally {
      await stranger.dispose();
    }
  });

  it('refuses a sidecar without the shared invocation secret: 401, logged by the callee', async () => {
    // It finds fragile through the same registry, but presents a secret of its own choosing.
    const impostor = await SvcdProcess.start({ appId: 'checkout', resources: { 'configuration.yaml': invocationConfiguration(registry) }, env: { SVC_INVOKE_TOKEN: 'a guess' } });
    try {
      const seen = fragileApp.seen.length;
      const res = await fetch(`${impostor.httpUrl}/v1.0/invoke/fragile/method/x`);
      expect(res.status).to.equal(401);
      expect(await res.json()).to.include({ errorCode: 'ERR_DIRECT_INVOKE_CALLER_UNAUTHENTICATED' });
      expect(fragileApp.seen.length).to.equal(seen);
      await eventually('the refusal is in the callee log', () => Promise.resolve(/caller not authenticated/.test(fragile.output)));
    } finally {
      await impostor.dispose();
    }
  });

  it('retries an idempotent call the target answered 503, up to the policy', async () => {
    const res = await fetch(`${checkout.httpUrl}/v1.0/invoke/vault/method/public/fail-times/2/get-key`);
    expect(res.status).to.equal(200);
    expect(vaultApp.seen.filter((s) => s.url === '/public/fail-times/2/get-key')).to.have.length(3);
  });

  it('gives up after its retries and returns the last answer', async () => {
    const res = await fetch(`${checkout.httpUrl}/v1.0/invoke/vault/method/public/fail-times/9/always`);
    expect(res.status).to.equal(503);
    expect(vaultApp.seen.filter((s) => s.url === '/public/fail-times/9/always')).to.have.length(4);
  });

  it('never retries a call whose body it streamed (a POST): the 503 comes back after one call', async () => {
    const res = await fetch(`${checkout.httpUrl}/v1.0/invoke/vault/method/public/fail-times/2/post-key`, { method: 'POST', body: 'order' });
    expect(res.status).to.equal(503);
    expect(vaultApp.seen.filter((s) => s.url === '/public/fail-times/2/post-key')).to.have.length(1);
  });

  it('times a call out after the policy timeout (504 ERR_RESILIENCY_TIMEOUT)', async () => {
    const started = Date.now();
    const res = await fetch(`${checkout.httpUrl}/v1.0/invoke/vault/method/public/slow/5000`);
    expect(res.status).to.equal(504);
    expect(await res.json()).to.include({ errorCode: 'ERR_RESILIENCY_TIMEOUT' });
    expect(Date.now() - started).to.be.below(4000);
  });

  it('opens the circuit breaker after 3 failures, fails fast while open, closes after a good probe', async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(`${checkout.httpUrl}/v1.0/invoke/fragile/method/status/500`)).status).to.equal(500);
    const seen = fragileApp.seen.length;
    const open = await fetch(`${checkout.httpUrl}/v1.0/invoke/fragile/method/status/200`);
    expect(open.status).to.equal(503);
    expect(await open.json()).to.include({ errorCode: 'ERR_CIRCUIT_BREAKER_OPEN' });
    expect(fragileApp.seen.length).to.equal(seen);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await fetch(`${checkout.httpUrl}/v1.0/invoke/fragile/method/status/200`)).status).to.equal(200);
    expect((await fetch(`${checkout.httpUrl}/v1.0/invoke/fragile/method/status/200`)).status).to.equal(200);
    expect(checkout.output).to.match(/circuit breaker changed state/);
  });
});
