/**
 * The Resiliency policies of --mode kubernetes against a real kube-apiserver: the chart's CRD keeps Dapr-shaped
 * documents, the loader lists them with the pod service account (the chart's RBAC: list on resiliencies), keeps
 * those scoped to its app id, and runs without policies, saying so, where the right is missing.
 */
import { expect } from 'chai';
import { ApiServerObjectLister, kubernetesConfig } from '@svc/runtime/components/kubernetes-loader.js';
import { createLogger } from '@svc/runtime/log/logger.js';
import { loadKubernetesResiliency, RESILIENCIES } from '@svc/runtime/resiliency/kubernetes-resiliency.js';
import { Resiliency } from '@svc/runtime/resiliency/resiliency.js';
import { installCrds, renderChart } from '../support/chart.js';
import { KubeApiServer } from '../support/kube-apiserver.js';
import type { KubeCredentials } from '../support/kube-client.js';
import { namespaceObject, resiliencyObject, serviceAccountObject } from '../support/kube-objects.js';

const SHOP = 'shop';
const APP_ID = 'orders';
const log = createLogger({ level: 'error', json: true });

const POLICIES = {
  policies: { timeouts: { quick: '2s' }, retries: { thrice: { policy: 'constant', duration: '100ms', maxRetries: 3 } } },
  targets: { apps: { payments: { timeout: 'quick', retry: 'thrice' } }, components: { statestore: { outbound: { timeout: 'quick' } } } },
};

describe('svcd --mode kubernetes: Resiliency objects from a real kube-apiserver', function () {
  this.timeout(180_000);
  let kube: KubeApiServer;
  let reader: KubeCredentials;
  let unbound: KubeCredentials;

  before(async () => {
    kube = await KubeApiServer.start();
    const chart = renderChart({ release: 'svc', namespace: 'svc-system', values: { 'sidecar.componentReaders': [{ namespace: SHOP, serviceAccount: APP_ID }] } });
    await installCrds(kube.admin, chart);
    await kube.admin.apply(namespaceObject(SHOP));
    for (const obj of chart.filter((o) => o.metadata.name?.includes('-components-reader'))) await kube.admin.apply(obj);
    for (const name of [APP_ID, 'default']) await kube.admin.apply(serviceAccountObject(SHOP, name));
    await kube.admin.apply(resiliencyObject(SHOP, 'orders-policies', [APP_ID], POLICIES));
    await kube.admin.apply(resiliencyObject(SHOP, 'someone-else', ['billing'], { policies: { timeouts: { t: '1s' } }, targets: { apps: { ledger: { timeout: 't' } } } }));
    reader = await kube.serviceAccountToken(SHOP, APP_ID);
    unbound = await kube.serviceAccountToken(SHOP, 'default');
  });
  after(async () => kube?.stop());

  const lister = (credentials: KubeCredentials, name: string) => new ApiServerObjectLister(kubernetesConfig(kube.writeKubeconfig(name, credentials)), undefined, RESILIENCIES);

  it('keeps the documents scoped to the app id, as the CRD stored them', async () => {
    const loaded = await loadKubernetesResiliency(APP_ID, SHOP, lister(reader, 'reader'), log);
    expect(loaded.resources).to.deep.equal(['orders-policies']);
    const described = new Resiliency(loaded).describe();
    expect(described.targets).to.deep.include({ kind: 'app', name: 'payments', timeout: 'quick', retry: 'thrice', circuitBreaker: undefined, circuitBreakerState: undefined });
    expect(described.targets.map((t) => t.name)).to.not.include('ledger');
  });

  it('runs without policies, with a warning, when the service account may not list them', async () => {
    const loaded = await loadKubernetesResiliency(APP_ID, SHOP, lister(unbound, 'unbound'), log);
    expect(loaded.resources).to.deep.equal([]);
  });
});
