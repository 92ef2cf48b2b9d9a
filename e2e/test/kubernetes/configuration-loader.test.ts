/**
 * The Configuration of --mode kubernetes against a real kube-apiserver: the chart's CRD admits a Dapr-shaped
 * Configuration (keeping the fields svcd does not read) and refuses an operation without an action; the loader gets
 * the named object with the pod service account, allowed by the chart's RBAC (get on configurations) and nothing
 * else, and says which name is missing or what was refused.
 */
import { expect } from 'chai';
import { ApiServerObjectLister, kubernetesConfig } from '@svc/runtime/components/kubernetes-loader.js';
import { CONFIGURATIONS, loadKubernetesConfiguration } from '@svc/runtime/components/kubernetes-configuration.js';
import { isRuntimeError } from '@svc/runtime/errors/runtime-error.js';
import { createLogger } from '@svc/runtime/log/logger.js';
import { startWithChartReaders } from '../support/chart-readers.js';
import { failureOf } from '../support/failure-of.js';
import type { KubeApiServer } from '../support/kube-apiserver.js';
import type { KubeCredentials } from '../support/kube-client.js';
import { configurationObject } from '../support/kube-objects.js';

const SHOP = 'shop';
const APP_ID = 'orders';
const log = createLogger({ level: 'error', json: true });

/** Dapr's hello-world Configuration, with a field svcd does not read (metrics). */
const NODE_APP_CONFIG = {
  tracing: { samplingRate: '1' },
  metrics: { enabled: true },
  accessControl: {
    defaultAction: 'allow',
    trustDomain: 'public',
    policies: [{ appId: 'pythonapp', defaultAction: 'allow', trustDomain: 'myDomain', namespace: 'default', operations: [{ name: '/neworder', httpVerb: ['POST'], action: 'deny' }] }],
  },
};

describe('svcd --mode kubernetes: the Configuration from a real kube-apiserver', function () {
  this.timeout(180_000);
  let kube: KubeApiServer;
  /** shop:orders, bound by the chart's componentReaders RoleBinding. */
  let reader: KubeCredentials;
  /** shop:default, with no RoleBinding. */
  let unbound: KubeCredentials;

  before(async () => {
    ({ kube, reader, unbound } = await startWithChartReaders(SHOP, APP_ID));
    await kube.admin.apply(configurationObject(SHOP, 'nodeappconfig', NODE_APP_CONFIG));
  });

  after(async () => kube?.stop());

  const getter = (credentials: KubeCredentials, name: string) => new ApiServerObjectLister(kubernetesConfig(kube.writeKubeconfig(name, credentials)), undefined, CONFIGURATIONS);

  it('the CRD keeps what svcd does not read, and refuses an operation without an action', async () => {
    const stored = await kube.admin.get(`/apis/svc.io/v1alpha1/namespaces/${SHOP}/configurations/nodeappconfig`);
    expect((stored as unknown as { spec: unknown }).spec).to.deep.equal(NODE_APP_CONFIG);
    const noAction = configurationObject(SHOP, 'no-action', { accessControl: { policies: [{ appId: 'a', operations: [{ name: '/x' }] }] } });
    const res = await kube.admin.request('POST', `/apis/svc.io/v1alpha1/namespaces/${SHOP}/configurations`, noAction);
    expect(res.status, res.text).to.equal(422);
    expect(res.text).to.contain('action');
  });

  it('gets the named Configuration with the pod service account', async () => {
    const config = await loadKubernetesConfiguration('nodeappconfig', SHOP, getter(reader, 'reader'), log);
    expect(config.source).to.equal('kubernetes: shop/nodeappconfig');
    expect(config.tracing).to.deep.equal({ samplingRate: '1' });
    expect(config.accessControl?.policies[0]).to.deep.equal({
      appId: 'pythonapp',
      defaultAction: 'allow',
      trustDomain: 'myDomain',
      namespace: 'default',
      operations: [{ name: '/neworder', httpVerb: ['POST'], action: 'deny' }],
    });
  });

  it('names a Configuration that does not exist', async () => {
    const err = await failureOf(loadKubernetesConfiguration('nope', SHOP, getter(reader, 'reader'), log));
    expect(isRuntimeError(err, 'ERR_CONFIGURATION_INVALID'), err.message).to.equal(true);
    expect(err.message).to.match(/^no Configuration 'nope' in namespace shop/);
  });

  it('stops at once on 403 with the RBAC hint for get', async () => {
    const err = await failureOf(loadKubernetesConfiguration('nodeappconfig', SHOP, getter(unbound, 'unbound'), log));
    expect(isRuntimeError(err, 'ERR_KUBERNETES_API'), err.message).to.equal(true);
    expect(err.message).to.match(/^cannot get configurations\.svc\.io nodeappconfig in namespace shop: 403 Forbidden: .*; the pod service account needs get on configurations\.svc\.io in its namespace$/);
  });
});
