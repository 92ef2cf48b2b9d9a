/**
 * svc-injector end to end against a real kube-apiserver (and etcd): the chart's objects are applied as
 * `helm install` would (the webhook reaching the injector by URL instead of through a Service: no cluster network
 * here), the real svc-injector runs with the chart's RBAC as its service account, and Pods created through the API
 * server come back mutated — the API server applies the JSON patch and validates the result for real. Finally the
 * injected svcd container's own environment starts a real svcd in Kubernetes mode with the pod's service account.
 */
import { expect } from 'chai';
import { freePort, SvcdProcess, tempFolder } from '@svc/runtime/test-support';
import { InjectorProcess } from '@svc/injector/test-support';
import { findObject, installCrds, renderChart } from '../support/chart.js';
import { KubeApiServer } from '../support/kube-apiserver.js';
import { KubeClient, type KubeObject, type KubeResponse } from '../support/kube-client.js';
import { componentObject, namespaceObject, serviceAccountObject } from '../support/kube-objects.js';
import { LabellingWebhook } from '../support/labelling-webhook.js';
import { startupFailure } from '../support/svcd-log.js';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string } };
}
interface Container {
  name: string;
  image: string;
  env?: EnvVar[];
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface Pod extends KubeObject {
  spec: {
    containers: Container[];
    volumes?: Array<{ name: string; emptyDir?: object; projected?: object }>;
    serviceAccountName?: string;
    automountServiceAccountToken?: boolean;
  };
}

const RELEASE_NAMESPACE = 'svc-system';
const SHOP = 'shop'; // opted in (namespace label of the chart's namespaceSelector)
const PLAIN = 'plain'; // not opted in
const BROKEN = 'broken'; // opted in, with a Component whose container annotation is not JSON
const GREEDY = 'greedy'; // opted in, with a Component whose container asks for what the container policy forbids
const APP_ID = 'orders';
const SOCKETS_FOLDER = '/tmp/svc-components-sockets';

const CONTAINER_ANNOTATION = 'svc.io/component-container';

function namespace(name: string, optedIn: boolean): KubeObject {
  return namespaceObject(name, optedIn ? { 'svc.io/injection': 'enabled' } : {});
}

/** A Component, with the container svc-injector injects for it given as an object or as raw annotation text. */
function component(ns: string, name: string, opts: { scopes?: string[]; container?: object | string }): KubeObject {
  const annotations: Record<string, string> = {};
  if (opts.container !== undefined) annotations[CONTAINER_ANNOTATION] = typeof opts.container === 'string' ? opts.container : JSON.stringify(opts.container);
  return componentObject(ns, name, { scopes: opts.scopes, annotations });
}

function pod(ns: string, name: string, annotations: Record<string, string>, containers: Container[] = [{ name: 'app', image: 'example/orders:1' }]): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: ns, name, annotations }, spec: { serviceAccountName: APP_ID, containers } };
}

const INJECT = { 'svc.io/enabled': 'true', 'svc.io/app-id': APP_ID };

function container(p: Pod, name: string): Container {
  const found = p.spec.containers.find((c) => c.name === name);
  expect(found, `container ${name} in ${p.spec.containers.map((c) => c.name).join(', ')}`).to.not.equal(undefined);
  return found!;
}

function envOf(c: Container): Record<string, string | undefined> {
  return Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
}

function socketMount(c: Container): { name: string; mountPath: string } | undefined {
  return c.volumeMounts?.find((m) => m.name === 'svc-components-sockets');
}

describe('svc-injector admission through a real kube-apiserver', function () {
  this.timeout(180_000);
  let kube: KubeApiServer;
  let injector: InjectorProcess;
  let chart: KubeObject[];

  before(async function () {
    // The API server authenticates to the webhook with a client certificate; the injector admits only that.
    kube = await KubeApiServer.start({ webhookClientCert: true });
    chart = renderChart({
      release: 'svc',
      namespace: RELEASE_NAMESPACE,
      values: { 'sidecar.componentReaders': [{ namespace: SHOP, serviceAccount: APP_ID }] },
    });

    // What `helm install` does: CRDs first, then every template (the API server validates each for real).
    await installCrds(kube.admin, chart);
    for (const ns of [namespace(RELEASE_NAMESPACE, false), namespace(SHOP, true), namespace(PLAIN, false), namespace(BROKEN, true), namespace(GREEDY, true)]) await kube.admin.apply(ns);
    // ServiceAccount admission needs the accounts pods run as (no token controller creates "default" here).
    for (const ns of [SHOP, PLAIN, BROKEN, GREEDY]) {
      await kube.admin.apply(serviceAccountObject(ns, 'default'));
      await kube.admin.apply(serviceAccountObject(ns, APP_ID));
    }
    const templates = chart.filter((o) => o.kind !== 'CustomResourceDefinition' && o.kind !== 'MutatingWebhookConfiguration');
    for (const obj of templates) await kube.admin.apply(obj);

    await kube.admin.apply(component(SHOP, 'memstore', { scopes: [APP_ID], container: { name: 'memstore', image: 'example/memstore:1', env: [{ name: 'MEMSTORE_MODE', value: 'fast' }] } }));
    await kube.admin.apply(component(SHOP, 'plain-store', { scopes: [APP_ID] }));
    await kube.admin.apply(component(SHOP, 'unscoped-store', { container: { name: 'unscoped', image: 'example/unscoped:1' } }));
    await kube.admin.apply(component(SHOP, 'foreign-store', { scopes: ['billing'], container: { name: 'foreign', image: 'example/foreign:1' } }));
    await kube.admin.apply(component(BROKEN, 'bad-store', { scopes: [APP_ID], container: '{"name": "bad", ' }));
    const greedy = { name: 'greedy', image: 'example/greedy:1', securityContext: { privileged: true, runAsUser: 0 }, ports: [{ containerPort: 80, hostPort: 80 }] };
    await kube.admin.apply(component(GREEDY, 'greedy-store', { scopes: [APP_ID], container: greedy }));

    // The injector runs as the chart's service account, so the chart's RBAC is what lets it list Components.
    const injectorAccount = findObject(chart, 'ServiceAccount');
    const token = await kube.serviceAccountToken(RELEASE_NAMESPACE, injectorAccount.metadata.name!);
    const serving = kube.pki.issue({ name: 'injector', commonName: 'svc-injector', ipAddresses: ['127.0.0.1'], dnsNames: ['localhost'] });
    injector = await InjectorProcess.start({
      certs: { dir: kube.dir, ca: { cert: kube.pki.ca, key: kube.pki.caKey }, certFile: serving.certFile, keyFile: serving.keyFile },
      // Debug logs say when a request is admitted unchanged (the reinvocation case counts them).
      args: ['--kubeconfig', kube.writeKubeconfig('svc-injector', token), '--sidecar-image', 'svc/svcd:e2e', '--log-level', 'debug', '--client-ca-file', kube.pki.caFile],
    });

    // The chart's webhook configuration, reached by URL with the test CA as caBundle (what the injector's
    // self-managed TLS patches in a cluster); rules, selectors, failure and reinvocation policy as rendered.
    const webhookConfig = structuredClone(findObject(chart, 'MutatingWebhookConfiguration')) as KubeObject & { webhooks: Array<Record<string, unknown>> };
    for (const hook of webhookConfig.webhooks) {
      hook.clientConfig = { url: `https://127.0.0.1:${injector.port}/mutate`, caBundle: Buffer.from(kube.pki.ca).toString('base64') };
    }
    await kube.admin.apply(webhookConfig);
    await webhookActive();
  });

  after(async () => {
    await injector?.stop();
    await kube?.stop();
  });

  /**
   * The API server picks up a new webhook configuration through its own informer, with no event a client can
   * watch for; a dry-run pod (webhooks with sideEffects None are called for dry runs) shows when it is in use.
   */
  async function webhookActive(probe: Pod = pod(SHOP, 'probe', INJECT), active = (p: Pod) => p.spec.containers.some((c) => c.name === 'svcd'), timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await kube.admin.request<Pod>('POST', `/api/v1/namespaces/${probe.metadata.namespace}/pods?dryRun=All`, probe);
      if (res.status === 201 && active(res.body)) return;
      if (Date.now() > deadline) throw new Error(`the webhook was not called within ${timeoutMs} ms (last: ${res.status} ${res.text})\n${injector.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function createPod(p: Pod): Promise<{ created: KubeResponse<Pod>; stored: Pod }> {
    const created = await kube.admin.apply<Pod>(p);
    const stored = await kube.admin.get<Pod>(`/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}`);
    return { created, stored };
  }

  it('injects svcd and the in-scope component container with the shared socket volume, and warns about the others', async () => {
    const { created, stored } = await createPod(pod(SHOP, 'orders-inject', { ...INJECT, 'svc.io/inject-pluggable-components': 'true' }));

    expect(stored.spec.containers.map((c) => c.name)).to.deep.equal(['app', 'memstore', 'svcd']);
    expect(stored.metadata.labels).to.include({ 'svc.io/sidecar-injected': 'true', 'svc.io/app-id': APP_ID });
    const volumes = stored.spec.volumes ?? [];
    expect(volumes.find((v) => v.name === 'svc-components-sockets')?.emptyDir).to.deep.equal({});
    // The service-account token volume the ServiceAccount admission plugin added before the webhook ran survives.
    expect(volumes.some((v) => v.name.startsWith('kube-api-access-') && v.projected !== undefined)).to.equal(true);

    const memstore = container(stored, 'memstore');
    const svcd = container(stored, 'svcd');
    const app = container(stored, 'app');
    expect(memstore.image).to.equal('example/memstore:1');
    expect(envOf(memstore)).to.include({ MEMSTORE_MODE: 'fast', SVC_COMPONENTS_SOCKETS_FOLDER: SOCKETS_FOLDER });
    expect(socketMount(memstore)?.mountPath).to.equal(SOCKETS_FOLDER);
    expect(svcd.image).to.equal('svc/svcd:e2e');
    expect(envOf(svcd)).to.include({ SVC_APP_ID: APP_ID, SVC_MODE: 'kubernetes', SVC_COMPONENTS_SOCKETS_FOLDER: SOCKETS_FOLDER });
    expect(socketMount(svcd)?.mountPath).to.equal(SOCKETS_FOLDER);
    expect(envOf(app)).to.have.property('SVC_HTTP_PORT');
    expect(envOf(app)).to.not.have.property('SVC_COMPONENTS_SOCKETS_FOLDER');
    expect(socketMount(app)).to.equal(undefined);

    const images = stored.spec.containers.map((c) => c.image);
    expect(images).to.not.include.members(['example/unscoped:1', 'example/foreign:1']);
    expect(created.warnings.join('\n')).to.match(/component "unscoped-store" is not injected: it has no scopes; add scopes: \["orders"\]/);
    expect(created.warnings.join('\n')).to.match(/component "foreign-store" is not injected: it is scoped to billing; add "orders" to its scopes/);
  });

  it('adds every volume to a pod that has none (one array, not several adds that replace each other)', async () => {
    const bare = pod(SHOP, 'orders-no-volumes', { ...INJECT, 'svc.io/inject-pluggable-components': 'true' });
    bare.spec.automountServiceAccountToken = false;
    const { stored } = await createPod(bare);
    expect((stored.spec.volumes ?? []).map((v) => v.name).sort()).to.deep.equal(['svc-components-sockets', 'svc-data', 'svc-invoke-token']);
    expect(stored.spec.containers.map((c) => c.name)).to.deep.equal(['app', 'memstore', 'svcd']);
  });

  it('treats the containers named by svc.io/pluggable-components as components (manual mode)', async () => {
    const { created, stored } = await createPod(
      pod(SHOP, 'orders-manual', { ...INJECT, 'svc.io/pluggable-components': 'my-store' }, [
        { name: 'app', image: 'example/orders:1' },
        { name: 'my-store', image: 'example/my-store:1' },
      ]),
    );
    expect(stored.spec.containers.map((c) => c.name)).to.deep.equal(['app', 'my-store', 'svcd']);
    const store = container(stored, 'my-store');
    expect(envOf(store)).to.include({ SVC_COMPONENTS_SOCKETS_FOLDER: SOCKETS_FOLDER });
    expect(envOf(store)).to.not.have.property('SVC_HTTP_PORT');
    expect(socketMount(store)?.mountPath).to.equal(SOCKETS_FOLDER);
    expect(socketMount(container(stored, 'svcd'))?.mountPath).to.equal(SOCKETS_FOLDER);
    expect(envOf(container(stored, 'app'))).to.have.property('SVC_HTTP_PORT');
    expect(socketMount(container(stored, 'app'))).to.equal(undefined);
    // Components were not asked for: none is injected, so none is warned about.
    expect(created.warnings).to.deep.equal([]);
  });

  it('leaves pods without svc.io/enabled, pods of namespaces that did not opt in and pods that already have svcd untouched', async () => {
    const plainPod = await createPod(pod(SHOP, 'no-annotation', {}));
    expect(plainPod.stored.spec.containers.map((c) => c.name)).to.deep.equal(['app']);
    expect(plainPod.stored.metadata.labels ?? {}).to.not.have.property('svc.io/sidecar-injected');
    expect(plainPod.created.warnings).to.deep.equal([]);

    const notOptedIn = await createPod(pod(PLAIN, 'orders-elsewhere', { ...INJECT, 'svc.io/inject-pluggable-components': 'true' }));
    expect(notOptedIn.stored.spec.containers.map((c) => c.name)).to.deep.equal(['app']);

    // Already injected (what a reinvocation sees): admitted as it is, svcd not added twice.
    const sidecarImage = 'example/own-svcd:1';
    const injected = await createPod(pod(SHOP, 'orders-has-svcd', INJECT, [{ name: 'app', image: 'example/orders:1' }, { name: 'svcd', image: sidecarImage }]));
    expect(injected.stored.spec.containers.map((c) => `${c.name}=${c.image}`)).to.deep.equal(['app=example/orders:1', `svcd=${sidecarImage}`]);
    expect(envOf(container(injected.stored, 'app'))).to.not.have.property('SVC_HTTP_PORT');
  });

  it('denies a pod whose in-scope Component carries an invalid container annotation, naming it', async () => {
    const res = await kube.admin.request<{ message?: string; code?: number }>('POST', `/api/v1/namespaces/${BROKEN}/pods`, pod(BROKEN, 'orders-broken', { ...INJECT, 'svc.io/inject-pluggable-components': 'true' }));
    expect(res.status, res.text).to.equal(400);
    expect(res.body.message).to.match(/admission webhook "sidecar-injector\.svc\.io" denied the request: .*component "bad-store": annotation svc\.io\/component-container is not valid JSON/);
    const stored = await kube.admin.request('GET', `/api/v1/namespaces/${BROKEN}/pods/orders-broken`);
    expect(stored.status).to.equal(404);
  });

  it('tells the API server why it cannot inject when it cannot list Components (the pod creator and the ReplicaSet events see the reason)', async () => {
    // Found in the local cluster: a 500 with a body the API server could not read left only `an error on the server
    // ("unknown")` in the ReplicaSet's events. The injector's ClusterRoleBinding removed, its Component list is refused.
    const binding = findObject(chart, 'ClusterRoleBinding', findObject(chart, 'ServiceAccount').metadata.name);
    const bindingPath = `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${binding.metadata.name}`;
    expect((await kube.admin.request('DELETE', bindingPath)).status).to.equal(200);
    try {
      const create = () => kube.admin.request<{ message?: string }>('POST', `/api/v1/namespaces/${SHOP}/pods?dryRun=All`, pod(SHOP, 'orders-no-list', { ...INJECT, 'svc.io/inject-pluggable-components': 'true' }));
      // The API server's RBAC cache sees the deletion shortly after it.
      let res = await create();
      for (let i = 0; i < 100 && res.status === 201; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        res = await create();
      }
      expect(res.status, res.text).to.equal(500);
      expect(res.body.message).to.match(
        /failed calling webhook "sidecar-injector\.svc\.io": failed to call webhook: cannot list components\.svc\.io in namespace shop: 403 Forbidden: components\.svc\.io is forbidden: User "system:serviceaccount:svc-system:svc-injector" cannot list resource "components" in API group "svc\.io" in the namespace "shop"$/,
      );
    } finally {
      await kube.admin.apply(binding);
    }
    await webhookActive(pod(SHOP, 'probe-again', { ...INJECT, 'svc.io/inject-pluggable-components': 'true' }));
  });

  it('answers the API server (client certificate) and refuses a direct caller: no component containers, env or patch for it', async () => {
    // Every injection in this suite went through the API server's certificate; a caller without one is refused.
    const forged = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'forged', kind: { group: '', version: 'v1', kind: 'Pod' }, operation: 'CREATE', namespace: SHOP, userInfo: { username: 'attacker', groups: ['system:masters'] }, object: pod(SHOP, 'x', { ...INJECT, 'svc.io/inject-pluggable-components': 'true' }) },
    };
    const res = await injector.request({ path: '/mutate', body: forged });
    expect(res.status, res.text).to.equal(401);
    expect(res.text).to.not.include('MEMSTORE_MODE').and.not.include('memstore');
  });

  it('denies a pod whose Component container asks for what the restricted policy forbids, naming each field', async () => {
    const res = await kube.admin.request<{ message?: string }>('POST', `/api/v1/namespaces/${GREEDY}/pods`, pod(GREEDY, 'orders-greedy', { ...INJECT, 'svc.io/inject-pluggable-components': 'true' }));
    expect(res.status, res.text).to.equal(400);
    for (const field of ['securityContext.privileged: true', 'securityContext.runAsUser: 0', 'ports[].hostPort: 80']) {
      expect(res.body.message).to.include(`component "greedy-store": container "greedy" sets ${field}, which the component container policy "restricted" forbids`);
    }
    expect((await kube.admin.request('GET', `/api/v1/namespaces/${GREEDY}/pods/orders-greedy`)).status).to.equal(404);
  });

  it('injects pods created by a pod-creating controller (service-account token, generateName, no pod name yet)', async () => {
    // The bootstrap RBAC policy lets kube-system:replicaset-controller create pods; only its account is missing.
    await kube.admin.apply(serviceAccountObject('kube-system', 'replicaset-controller'));
    const controller = new KubeClient(await kube.serviceAccountToken('kube-system', 'replicaset-controller'));
    try {
      const template = pod(SHOP, '', { ...INJECT, 'svc.io/inject-pluggable-components': 'true' });
      template.metadata = { namespace: SHOP, generateName: `${APP_ID}-`, annotations: template.metadata.annotations };
      const created = await controller.apply<Pod>(template);
      expect(created.body.spec.containers.map((c) => c.name)).to.deep.equal(['app', 'memstore', 'svcd']);
      expect(created.body.metadata.name).to.match(/^orders-/);
    } finally {
      controller.close();
    }
  });

  it('admits a pod from an untrusted creator unchanged, with a warning that says why', async () => {
    // shop:orders may create pods (a Role of this test) but is not a pod creator the injector trusts.
    await kube.admin.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { namespace: SHOP, name: 'pod-creator' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['create'] }] });
    await kube.admin.apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { namespace: SHOP, name: 'orders-pod-creator' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-creator' },
      subjects: [{ kind: 'ServiceAccount', name: APP_ID, namespace: SHOP }],
    });
    const untrusted = new KubeClient(await kube.serviceAccountToken(SHOP, APP_ID));
    try {
      const created = await untrusted.apply<Pod>(pod(SHOP, 'orders-untrusted', INJECT));
      expect(created.body.spec.containers.map((c) => c.name)).to.deep.equal(['app']);
      expect(created.warnings.join('\n')).to.include('created by system:serviceaccount:shop:orders, which svc-injector does not trust: no sidecar injected');
    } finally {
      untrusted.close();
    }
  });

  it('is idempotent when the API server reinvokes it after a later webhook changed the pod', async () => {
    const serving = kube.pki.issue({ name: 'labeller', commonName: 'labeller', ipAddresses: ['127.0.0.1'] });
    const labeller = await LabellingWebhook.start({ cert: serving.cert, key: serving.key, label: 'e2e.svc.io/labelled', value: 'true' });
    const optIn = { 'e2e.svc.io/reinvoke': 'yes' };
    const reinvoked = (name: string) => {
      const p = pod(SHOP, name, { ...INJECT, 'svc.io/inject-pluggable-components': 'true' });
      p.metadata.labels = { ...optIn };
      return p;
    };
    // The injector's log lines reach this process apart from the API server's answers, so they are matched by pod
    // (the dry-run probe's reinvocation may be logged late) and awaited rather than counted at once.
    const unchangedLine = /"pod":"shop\/orders-reinvoked","reason":"svcd is already in the pod"/;
    try {
      // Webhooks are called in the order of their configuration names: svc-injector first, then this one.
      await kube.admin.apply({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'zz-e2e-labeller' },
        webhooks: [{
          name: 'labeller.e2e.svc.io',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          reinvocationPolicy: 'Never',
          objectSelector: { matchLabels: optIn },
          clientConfig: { url: labeller.url, caBundle: Buffer.from(kube.pki.ca).toString('base64') },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE'], scope: 'Namespaced' }],
        }],
      });
      await webhookActive(reinvoked('orders-reinvoked-probe'), (p) => p.metadata.labels?.['e2e.svc.io/labelled'] === 'true');
      const seenBefore = labeller.seen.length;

      const { stored } = await createPod(reinvoked('orders-reinvoked'));
      expect(stored.spec.containers.map((c) => c.name)).to.deep.equal(['app', 'memstore', 'svcd']);
      expect(stored.metadata.labels).to.include({ 'e2e.svc.io/labelled': 'true', 'svc.io/sidecar-injected': 'true' });
      // The labeller saw the injected pod; its change made the API server call svc-injector again, which found
      // svcd and left the pod as it was (a second svcd would have failed validation).
      expect(labeller.seen.slice(seenBefore)).to.deep.equal([{ containers: ['app', 'memstore', 'svcd'] }]);
      await injector.waitForOutput(unchangedLine);
      expect(injector.output.split('\n').filter((line) => unchangedLine.test(line))).to.have.length(1);
    } finally {
      await kube.admin.request('DELETE', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/zz-e2e-labeller');
      await labeller.stop();
    }
  });

  it('runs the injected svcd container as configured: Kubernetes mode loads the in-scope Components with the pod service account', async () => {
    const { stored } = await createPod(pod(SHOP, 'orders-sidecar', { ...INJECT, 'svc.io/inject-pluggable-components': 'true' }));
    const svcd = container(stored, 'svcd');
    // What the kubelet would do with the container's env: resolve the downward-API fields.
    const env: Record<string, string> = {};
    for (const e of svcd.env ?? []) {
      if (e.value !== undefined) env[e.name] = e.value;
      else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') env[e.name] = stored.metadata.namespace!;
      else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.name') env[e.name] = stored.metadata.name!;
      // The pod IP, on this machine: loopback.
      else if (e.valueFrom?.fieldRef?.fieldPath === 'status.podIP') env[e.name] = '127.0.0.1';
      else throw new Error(`env ${e.name} has a source this test does not resolve: ${JSON.stringify(e.valueFrom)}`);
    }
    // The pod's service account, allowed by the chart's componentReaders RoleBinding and nothing else.
    const token = await kube.serviceAccountToken(SHOP, stored.spec.serviceAccountName!);
    env.KUBECONFIG = kube.writeKubeconfig('orders', token);
    // Only the addresses change: the pod's network namespace is this machine's loopback here.
    const sidecar = await SvcdProcess.start({
      appId: env.SVC_APP_ID,
      env,
      args: ['--listen-address', '127.0.0.1', '--internal-grpc-port', String(await freePort())],
      socketsFolder: tempFolder('svc-sockets-'),
    });
    try {
      const res = await sidecar.request('GET', '/v1.0/metadata');
      expect(res.status).to.equal(200);
      const body = (await res.json()) as { id?: string; components?: Array<{ name: string; type: string }> };
      expect(body.id).to.equal(APP_ID);
      const names = (body.components ?? []).map((c) => c.name).sort();
      // Scoped to orders, or unscoped (svcd loads those; only injection requires a scope); never billing's. And the
      // default `kubernetes` secret store of kubernetes mode.
      expect(names).to.deep.equal(['kubernetes', 'memstore', 'plain-store', 'unscoped-store']);
    } finally {
      await sidecar.dispose();
    }
  });

  it('svcd in Kubernetes mode is refused Components by RBAC for a service account without the chart RoleBinding', async () => {
    const token = await kube.serviceAccountToken(SHOP, 'default');
    const sidecar = await SvcdProcess.start({
      appId: APP_ID,
      args: ['--mode', 'kubernetes', '--namespace', SHOP, '--kubeconfig', kube.writeKubeconfig('shop-default', token), '--listen-address', '127.0.0.1', '--internal-grpc-port', String(await freePort())],
      waitReady: false,
    });
    const exit = await sidecar.exited;
    expect(exit.code, sidecar.output).to.equal(1);
    // One clean line: the status and the API server's reason, who was refused what, and the fix.
    const failure = startupFailure(sidecar.output);
    expect(failure.errorCode).to.equal('ERR_KUBERNETES_API');
    expect(failure.err).to.equal(
      'cannot list components.svc.io in namespace shop: 403 Forbidden: components.svc.io is forbidden: User "system:serviceaccount:shop:default" ' +
        'cannot list resource "components" in API group "svc.io" in the namespace "shop"; the pod service account needs get/list on components.svc.io in its namespace',
    );
  });
});
