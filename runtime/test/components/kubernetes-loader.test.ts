import { KubeConfig } from '@kubernetes/client-node';
import { expect } from 'chai';
import { pino } from 'pino';
import { ApiServerComponentLister, loadKubernetesComponents } from '../../src/components/kubernetes-loader.js';
import { isRuntimeError } from '../../src/errors/runtime-error.js';
import { FakeKubeApi } from '../support/fake-kube-api.js';
import { SvcdProcess } from '../support/svcd-process.js';

const log = pino({ level: 'silent' });

function component(name: string, type: string, scopes?: string[], namespace = 'shop'): object {
  return { metadata: { name, namespace }, spec: { type, version: 'v1', metadata: [] }, ...(scopes ? { scopes } : {}) };
}

describe('kubernetes mode: Components from the API server', () => {
  let api: FakeKubeApi;
  let kubeconfig: string;
  before(async () => {
    api = await FakeKubeApi.start();
    kubeconfig = api.writeKubeconfig();
  });
  after(async () => api?.stop());

  function lister(): ApiServerComponentLister {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    return new ApiServerComponentLister(kc);
  }

  it('reads the namespace through the API with the kubeconfig credentials and keeps what this app may load', async () => {
    api.components.set('shop', [
      component('mine', 'state.in-memory', ['orders']),
      component('everyone', 'pubsub.in-memory'),
      component('theirs', 'state.in-memory', ['billing']),
    ]);
    const before = api.requests.length;
    const specs = await loadKubernetesComponents({ appId: 'orders', namespace: 'shop', log, lister: lister() });
    expect(specs.map((s) => s.name)).to.deep.equal(['mine', 'everyone']);
    expect(specs[0]?.source).to.equal('kubernetes: shop/mine');
    const req = api.requests[before]!;
    expect(req.path).to.match(/^\/apis\/svc\.io\/v1alpha1\/namespaces\/shop\/components/);
    expect(req.authorization).to.equal(`Bearer ${api.token}`);
  });

  it('applies the disk loader rules: duplicate names are fatal even out of scope; invalid specs are fatal', async () => {
    api.components.set('dup', [component('x', 'state.in-memory', ['orders'], 'dup'), component('x', 'state.in-memory', ['billing'], 'dup')]);
    const dup = await loadKubernetesComponents({ appId: 'orders', namespace: 'dup', log, lister: lister() }).then(() => undefined, (e: unknown) => e);
    expect(isRuntimeError(dup, 'ERR_COMPONENT_DUPLICATE')).to.equal(true);
    api.components.set('bad', [{ metadata: { name: 'b' }, spec: { type: 'state.in-memory', version: 'v2' } }]);
    const bad = await loadKubernetesComponents({ appId: 'orders', namespace: 'bad', log, lister: lister() }).then(() => undefined, (e: unknown) => e);
    expect(isRuntimeError(bad, 'ERR_COMPONENT_SPEC_INVALID')).to.equal(true);
    expect((bad as Error).message).to.contain('kubernetes: bad/b').and.contain('spec.version');
  });

  it('a refused list (403) fails with ERR_KUBERNETES_API and the RBAC hint; no namespace is a config error', async () => {
    api.failWith = 403;
    try {
      const err = await loadKubernetesComponents({ appId: 'orders', namespace: 'shop', log, lister: lister() }).then(() => undefined, (e: unknown) => e);
      expect(isRuntimeError(err, 'ERR_KUBERNETES_API')).to.equal(true);
      expect((err as Error).message).to.contain('get/list on components.svc.io');
    } finally {
      api.failWith = undefined;
    }
    const noNs = await loadKubernetesComponents({ appId: 'orders', namespace: undefined, log, lister: lister() }).then(() => undefined, (e: unknown) => e);
    expect(isRuntimeError(noNs, 'ERR_CONFIG_INVALID')).to.equal(true);
  });

  it('a real svcd in --mode kubernetes loads and serves the in-scope Components', async () => {
    api.components.set('live', [component('orders-store', 'state.in-memory', ['orders'], 'live'), component('other', 'state.in-memory', ['billing'], 'live')]);
    const svcd = await SvcdProcess.start({ appId: 'orders', args: ['--mode', 'kubernetes', '--kubeconfig', kubeconfig, '--namespace', 'live'] });
    try {
      const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { components: Array<{ name: string }> };
      expect(meta.components.map((c) => c.name)).to.include('orders-store').and.not.include('other');
      expect((await svcd.request('POST', '/v1.0/state/orders-store', [{ key: 'k', value: 1 }])).status).to.equal(204);
      expect(await (await svcd.request('GET', '/v1.0/state/orders-store/k')).text()).to.equal('1');
    } finally {
      await svcd.stop();
    }
  });

  it('svcd in --mode kubernetes without API access exits with a clear error', async () => {
    const err = await SvcdProcess.start({ appId: 'orders', args: ['--mode', 'kubernetes', '--namespace', 'live'], env: { KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '' } }).then(
      async (p) => {
        await p.stop();
        return undefined;
      },
      (e: unknown) => e as Error,
    );
    expect(err?.message).to.contain('--mode kubernetes needs the in-cluster service account or --kubeconfig');
  });
});
