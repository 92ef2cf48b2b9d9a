/**
 * Secrets in svcd's kubernetes mode against a real kube-apiserver, with the pod's service-account token and the
 * chart's RBAC only: the default `kubernetes` secret store serves the namespace's Secrets (and no other
 * namespace's), a `state.redis` Component's password comes from a Secret read directly (no auth.secretStore),
 * and the password is nowhere in svcd's output.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { freePort, PrivateRedisServer, SvcdProcess } from '@svc/runtime/test-support';
import { installCrds, renderChart } from '../support/chart.js';
import { KubeApiServer } from '../support/kube-apiserver.js';
import { configurationObject, namespaceObject, serviceAccountObject } from '../support/kube-objects.js';

const NS = 'vault-ns';
const OTHER_NS = 'elsewhere';
const APP_ID = 'orders';
const REDIS_PASSWORD = `k8s-redis-pw-${randomUUID()}`;

const secretObject = (namespace: string, name: string, values: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { namespace, name }, stringData: values });

describe('secrets in kubernetes mode (real kube-apiserver, chart RBAC)', function () {
  this.timeout(120_000);
  let kube: KubeApiServer;
  let redis: PrivateRedisServer;
  let svcd: SvcdProcess;
  /** The same app under a Configuration whose secrets.scopes allow only `api` from the kubernetes store. */
  let scoped: SvcdProcess;

  before(async () => {
    kube = await KubeApiServer.start();
    const chart = renderChart({ release: 'svc', namespace: 'svc-system', values: { 'sidecar.componentReaders': [{ namespace: NS, serviceAccount: APP_ID }] } });
    await installCrds(kube.admin, chart);
    for (const ns of [NS, OTHER_NS]) await kube.admin.apply(namespaceObject(ns));
    for (const obj of chart.filter((o) => o.metadata.name?.includes('-components-reader'))) await kube.admin.apply(obj);
    await kube.admin.apply(serviceAccountObject(NS, APP_ID));
    await kube.admin.apply(secretObject(NS, 'redis', { password: REDIS_PASSWORD }));
    await kube.admin.apply(secretObject(NS, 'api', { key: 'k-1', region: 'eu' }));
    await kube.admin.apply(secretObject(OTHER_NS, 'theirs', { key: 'not-yours' }));
    const redisPort = await freePort();
    redis = await PrivateRedisServer.start(redisPort, { password: REDIS_PASSWORD });
    await kube.admin.apply({
      apiVersion: 'svc.io/v1alpha1',
      kind: 'Component',
      metadata: { namespace: NS, name: 'statestore' },
      spec: { type: 'state.redis', version: 'v1', metadata: [{ name: 'redisHost', value: `127.0.0.1:${redisPort}` }, { name: 'redisPassword', secretKeyRef: { name: 'redis', key: 'password' } }] },
    });
    const token = await kube.serviceAccountToken(NS, APP_ID);
    svcd = await SvcdProcess.start({
      appId: APP_ID,
      args: ['--mode', 'kubernetes', '--namespace', NS, '--kubeconfig', kube.writeKubeconfig('svcd', token), '--internal-grpc-port', String(await freePort()), '--log-level', 'debug'],
    });
    await kube.admin.apply(configurationObject(NS, 'only-api', { secrets: { scopes: [{ storeName: 'kubernetes', defaultAccess: 'deny', allowedSecrets: ['api'] }] } }));
    scoped = await SvcdProcess.start({
      appId: APP_ID,
      args: ['--mode', 'kubernetes', '--namespace', NS, '--kubeconfig', kube.writeKubeconfig('scoped', token), '--internal-grpc-port', String(await freePort()), '--config', 'only-api'],
    });
  });
  after(async () => {
    await scoped?.dispose();
    await svcd?.dispose();
    await redis?.stop();
    await kube?.stop();
  });

  it('serves the namespace Secrets through the default kubernetes store, listed in /v1.0/metadata', async () => {
    expect(await (await svcd.request('GET', '/v1.0/secrets/kubernetes/api')).json()).to.deep.equal({ key: 'k-1', region: 'eu' });
    const bulk = (await (await svcd.request('GET', '/v1.0/secrets/kubernetes/bulk')).json()) as Record<string, unknown>;
    expect(bulk.api).to.deep.equal({ key: 'k-1', region: 'eu' });
    expect(bulk).to.not.have.property('theirs');
    const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { components: Array<{ name: string; type: string }> };
    expect(meta.components).to.deep.include.members([{ name: 'kubernetes', type: 'secretstores.kubernetes', version: 'v1', origin: 'built-in', capabilities: [] }]);
  });

  it('reads no other namespace, and says so without a value', async () => {
    const res = await svcd.request('GET', '/v1.0/secrets/kubernetes/theirs');
    const body = (await res.json()) as { errorCode: string; message: string };
    expect([res.status, body.errorCode]).to.deep.equal([500, 'ERR_SECRET_GET']);
    expect(body.message).to.equal(`failed getting secret with key theirs from secret store kubernetes: get Secret theirs: not found in namespace ${NS}`);
  });

  it("started state.redis with the password read from the namespace's Secret", async () => {
    expect((await svcd.request('POST', '/v1.0/state/statestore', [{ key: 'k', value: 1 }])).status).to.equal(204);
    expect(await (await svcd.request('GET', '/v1.0/state/statestore/k')).text()).to.equal('1');
  });

  it("applies the Configuration object's secrets.scopes to the kubernetes store", async () => {
    expect(await (await scoped.request('GET', '/v1.0/secrets/kubernetes/api')).json()).to.deep.equal({ key: 'k-1', region: 'eu' });
    const denied = await scoped.request('GET', '/v1.0/secrets/kubernetes/redis');
    const body = (await denied.json()) as { errorCode: string; message: string };
    expect([denied.status, body.errorCode]).to.deep.equal([403, 'ERR_PERMISSION_DENIED']);
    expect(body.message).to.not.include(REDIS_PASSWORD);
    const bulk = (await (await scoped.request('GET', '/v1.0/secrets/kubernetes/bulk')).json()) as Record<string, unknown>;
    expect(Object.keys(bulk)).to.deep.equal(['api']);
    // The scope limits the app's reads, not svcd's own: the Component's secretKeyRef to `redis` still resolved.
    expect((await scoped.request('POST', '/v1.0/state/statestore', [{ key: 'k2', value: 2 }])).status).to.equal(204);
  });

  it("never logs the Secret's value", () => {
    expect(svcd.output).to.include('component loaded');
    expect(svcd.output.includes(REDIS_PASSWORD)).to.equal(false);
    expect(scoped.output.includes(REDIS_PASSWORD)).to.equal(false);
  });
});
