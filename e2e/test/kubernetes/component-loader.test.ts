/**
 * svcd's Kubernetes mode against a real kube-apiserver (and etcd): the Component and Subscription loaders list
 * the namespace with the pod's service-account token, authorised by the chart's RBAC and nothing else, parse and
 * scope what the API server stored, and fails with one clean ERR_KUBERNETES_API line when the API server refuses it or is unreachable.
 * One API server serves the whole file.
 */
import net from 'node:net';
import { expect } from 'chai';
import { freePort, SubscriberApp, SvcdProcess } from '@svc/runtime/test-support';
import { ApiServerObjectLister, kubernetesConfig, loadKubernetesComponents } from '@svc/runtime/components/kubernetes-loader.js';
import { loadKubernetesSubscriptions, SUBSCRIPTIONS } from '@svc/runtime/pubsub/kubernetes-subscriptions.js';
import { isRuntimeError } from '@svc/runtime/errors/runtime-error.js';
import { createLogger } from '@svc/runtime/log/logger.js';
import { installCrds, renderChart } from '../support/chart.js';
import { failureOf } from '../support/failure-of.js';
import { KubeApiServer } from '../support/kube-apiserver.js';
import type { KubeCredentials } from '../support/kube-client.js';
import { componentObject, namespaceObject, serviceAccountObject, subscriptionObject } from '../support/kube-objects.js';
import { startupFailure } from '../support/svcd-log.js';

const SHOP = 'shop';
const BAD_SPEC = 'bad-spec';
/** Holds a pub/sub Component and Subscriptions. */
const EVENTS = 'events';
const APP_ID = 'orders';
/** Only what a test does not expect reaches the output: the loader's info lines would be noise. */
const log = createLogger({ level: 'error', json: true });

/** The lister's retry warnings, and a promise of the first one (the moment a first attempt has failed). */
class RetryLog {
  readonly warnings: Array<{ attempt?: number; problem?: string }> = [];
  private firstSeen!: () => void;
  readonly first = new Promise<void>((resolve) => (this.firstSeen = resolve));

  warn = (fields: unknown): void => {
    this.warnings.push(fields as { attempt?: number; problem?: string });
    this.firstSeen();
  };
}

/**
 * The API server's address, not listening until `listen()`: a TCP relay to the real API server, which does the
 * TLS, the authentication and the answer. It stands for an API server that is still starting (the case the
 * lister's retries are for), which the real one cannot show on demand: its port is only known once it is up.
 */
class LateAddress {
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((client) => {
    const upstream = net.connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.once('error', () => (socket === client ? upstream : client).destroy());
    }
    client.pipe(upstream).pipe(client);
  });

  private constructor(readonly port: number, private readonly target: { host: string; port: number }) {}

  static async reserve(apiServer: string): Promise<LateAddress> {
    const url = new URL(apiServer);
    return new LateAddress(await freePort(), { host: url.hostname, port: Number(url.port) });
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => (this.server.listening ? this.server.close(() => resolve()) : resolve()));
  }
}

describe('svcd --mode kubernetes: Components and Subscriptions from a real kube-apiserver', function () {
  this.timeout(180_000);
  let kube: KubeApiServer;
  /** shop:orders, bound by the chart's componentReaders RoleBinding. */
  let reader: KubeCredentials;
  /** bad-spec:orders, bound the same way in its namespace. */
  let badSpecReader: KubeCredentials;
  /** shop:default, with no RoleBinding. */
  let unbound: KubeCredentials;
  /** events:orders, bound by the chart's componentReaders RoleBinding. */
  let eventsReader: KubeCredentials;

  before(async () => {
    kube = await KubeApiServer.start();
    const chart = renderChart({
      release: 'svc',
      namespace: 'svc-system',
      values: { 'sidecar.componentReaders': [SHOP, BAD_SPEC, EVENTS].map((namespace) => ({ namespace, serviceAccount: APP_ID })) },
    });
    await installCrds(kube.admin, chart);
    for (const ns of [SHOP, BAD_SPEC, EVENTS]) await kube.admin.apply(namespaceObject(ns));
    // The chart's RBAC for svcd, exactly as rendered: the ClusterRole and one RoleBinding per reader.
    for (const obj of chart.filter((o) => o.metadata.name?.includes('-components-reader'))) await kube.admin.apply(obj);
    for (const name of [APP_ID, 'default']) await kube.admin.apply(serviceAccountObject(SHOP, name));
    await kube.admin.apply(serviceAccountObject(BAD_SPEC, APP_ID));
    await kube.admin.apply(serviceAccountObject(EVENTS, APP_ID));

    await kube.admin.apply(componentObject(EVENTS, 'pubsub', { spec: { type: 'pubsub.in-memory', version: 'v1' } }));
    await kube.admin.apply(subscriptionObject(EVENTS, 'orders', { scopes: [APP_ID], spec: { pubsubname: 'pubsub', topic: 'orders', routes: { rules: [{ match: 'event.data.rush == true', path: '/rush' }], default: '/orders' } } }));
    await kube.admin.apply(subscriptionObject(EVENTS, 'audit', { spec: { pubsubname: 'pubsub', topic: 'audit', routes: { default: '/audit' }, metadata: { concurrency: '1' } } }));
    await kube.admin.apply(subscriptionObject(EVENTS, 'theirs', { scopes: ['billing'], spec: { pubsubname: 'pubsub', topic: 'invoices', routes: { default: '/invoices' } } }));

    await kube.admin.apply(componentObject(SHOP, 'mine', { scopes: [APP_ID], spec: { type: 'state.in-memory', version: 'v1', metadata: [{ name: 'ttl', value: 30 }] } }));
    await kube.admin.apply(componentObject(SHOP, 'everyone'));
    await kube.admin.apply(componentObject(SHOP, 'theirs', { scopes: ['billing'] }));
    // The CRD's schema admits this type (<api>.<name>); svcd knows no "queues" API, so its parser refuses it.
    await kube.admin.apply(componentObject(BAD_SPEC, 'bad-store', { scopes: [APP_ID], spec: { type: 'queues.memory', version: 'v1' } }));

    reader = await kube.serviceAccountToken(SHOP, APP_ID);
    unbound = await kube.serviceAccountToken(SHOP, 'default');
    badSpecReader = await kube.serviceAccountToken(BAD_SPEC, APP_ID);
    eventsReader = await kube.serviceAccountToken(EVENTS, APP_ID);
  });

  after(async () => kube?.stop());

  function lister(credentials: KubeCredentials, name: string, retries?: RetryLog): ApiServerObjectLister {
    return new ApiServerObjectLister(kubernetesConfig(kube.writeKubeconfig(name, credentials)), retries);
  }

  function load(namespace: string | undefined, from: ApiServerObjectLister) {
    return loadKubernetesComponents({ appId: APP_ID, namespace, log, lister: from });
  }

  it('lists the namespace with the pod service account and keeps the Components scoped to the app and the unscoped ones', async () => {
    const specs = await load(SHOP, lister(reader, 'reader'));
    expect(specs.map((s) => s.name).sort()).to.deep.equal(['everyone', 'mine']);
    const mine = specs.find((s) => s.name === 'mine')!;
    expect(mine.source).to.equal('kubernetes: shop/mine');
    expect(mine.type).to.equal('state.in-memory');
    // Parsed like a file: a non-string metadata value reaches the component JSON-encoded.
    expect(mine.metadata).to.deep.equal({ ttl: '30' });
  });

  // Duplicate names, the other rule the disk loader applies, cannot come from an API server (a name is unique in
  // its namespace, and only one namespace is listed); test/components/spec.test.ts covers selectComponents' rule.

  it('fails the load on a Component its parser refuses, naming kubernetes: <namespace>/<name> and the field', async () => {
    const err = await failureOf(load(BAD_SPEC, lister(badSpecReader, 'bad-spec-reader')));
    expect(isRuntimeError(err, 'ERR_COMPONENT_SPEC_INVALID'), err.message).to.equal(true);
    expect(err.message).to.equal("kubernetes: bad-spec/bad-store: spec.type has unknown api 'queues' (one of state, pubsub, bindings, secretstores, workflow, lock, configuration)");
  });

  it('stops at once on 403 with ERR_KUBERNETES_API: status, reason, who was refused what, and the RBAC hint', async () => {
    const retries = new RetryLog();
    const err = await failureOf(load(SHOP, lister(unbound, 'unbound', retries)));
    expect(isRuntimeError(err, 'ERR_KUBERNETES_API'), err.message).to.equal(true);
    expect(err.message).to.equal(
      'cannot list components.svc.io in namespace shop: 403 Forbidden: components.svc.io is forbidden: User "system:serviceaccount:shop:default" ' +
        'cannot list resource "components" in API group "svc.io" in the namespace "shop"; the pod service account needs get/list on components.svc.io in its namespace',
    );
    expect(retries.warnings).to.deep.equal([]);
  });

  it('stops at once on 401 (a token the API server does not accept), without the RBAC hint', async () => {
    const retries = new RetryLog();
    const err = await failureOf(load(SHOP, lister({ ...reader, token: 'not-a-token' }, 'bad-token', retries)));
    expect(isRuntimeError(err, 'ERR_KUBERNETES_API'), err.message).to.equal(true);
    expect(err.message).to.equal('cannot list components.svc.io in namespace shop: 401 Unauthorized');
    expect(retries.warnings).to.deep.equal([]);
  });

  it('retries while the API server is not listening yet, then lists', async () => {
    const address = await LateAddress.reserve(kube.server);
    const retries = new RetryLog();
    try {
      const loading = load(SHOP, lister({ ...reader, server: address.url }, 'late', retries));
      await retries.first;
      await address.listen();
      expect((await loading).map((s) => s.name).sort()).to.deep.equal(['everyone', 'mine']);
      expect(retries.warnings[0]?.problem).to.contain('ECONNREFUSED');
    } finally {
      await address.close();
    }
  });

  it('gives up after 5 attempts on an API server that never answers, naming the transport error', async () => {
    const address = await LateAddress.reserve(kube.server);
    const retries = new RetryLog();
    const err = await failureOf(load(SHOP, lister({ ...reader, server: address.url }, 'never', retries)));
    expect(isRuntimeError(err, 'ERR_KUBERNETES_API'), err.message).to.equal(true);
    expect(err.message).to.match(/^cannot list components\.svc\.io in namespace shop: .*ECONNREFUSED/);
    expect(err.message).to.not.contain('RBAC').and.not.contain('service account');
    expect(retries.warnings.map((w) => w.attempt)).to.deep.equal([1, 2, 3, 4]);
  });

  it('needs a namespace (the injector sets it from the downward API)', async () => {
    const err = await failureOf(load(undefined, lister(reader, 'reader')));
    expect(isRuntimeError(err, 'ERR_CONFIG_INVALID'), err.message).to.equal(true);
    expect(err.message).to.contain('--mode kubernetes needs --namespace');
  });

  it('a real svcd in --mode kubernetes serves the in-scope Components it read', async () => {
    const svcd = await SvcdProcess.start({
      appId: APP_ID,
      args: ['--mode', 'kubernetes', '--namespace', SHOP, '--kubeconfig', kube.writeKubeconfig('svcd', reader), '--internal-grpc-port', String(await freePort())],
    });
    try {
      const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { components: Array<{ name: string }> };
      expect(meta.components.map((c) => c.name).sort()).to.deep.equal(['everyone', 'kubernetes', 'mine']);
      expect((await svcd.request('POST', '/v1.0/state/mine', [{ key: 'k', value: 1 }])).status).to.equal(204);
      expect(await (await svcd.request('GET', '/v1.0/state/mine/k')).text()).to.equal('1');
    } finally {
      await svcd.stop();
    }
  });

  it('svcd in --mode kubernetes with neither a service account nor a kubeconfig exits with ERR_CONFIG_INVALID', async () => {
    const svcd = await SvcdProcess.start({
      appId: APP_ID,
      args: ['--mode', 'kubernetes', '--namespace', SHOP, '--internal-grpc-port', String(await freePort())],
      env: { KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '' },
      waitReady: false,
    });
    expect((await svcd.exited).code, svcd.output).to.equal(1);
    const failure = startupFailure(svcd.output);
    expect(failure.errorCode).to.equal('ERR_CONFIG_INVALID');
    expect(failure.err).to.equal('--mode kubernetes needs the in-cluster service account or --kubeconfig / KUBECONFIG');
  });

  it('reads the Subscriptions of the namespace scoped to the app and the unscoped ones', async () => {
    const subs = await loadKubernetesSubscriptions({ appId: APP_ID, namespace: EVENTS, log, lister: new ApiServerObjectLister(kubernetesConfig(kube.writeKubeconfig('events-reader', eventsReader)), undefined, SUBSCRIPTIONS) });
    expect(subs.map((s) => [s.topic, s.source, s.defaultPath]).sort()).to.deep.equal([
      ['audit', 'kubernetes: events/audit', '/audit'],
      ['orders', 'kubernetes: events/orders', '/orders'],
    ]);
    expect(subs.find((s) => s.topic === 'audit')!.metadata).to.deep.equal({ concurrency: '1' });
  });

  it('without the Subscription CRD (404) there are no declarative subscriptions; a 403 names the resource and the RBAC hint', async () => {
    const absent = { plural: 'subscriptions', version: 'v9' };
    const none = await loadKubernetesSubscriptions({ appId: APP_ID, namespace: EVENTS, log, lister: new ApiServerObjectLister(kubernetesConfig(kube.writeKubeconfig('events-v9', eventsReader)), undefined, absent) });
    expect(none).to.deep.equal([]);
    const err = await failureOf(loadKubernetesSubscriptions({ appId: APP_ID, namespace: SHOP, log, lister: new ApiServerObjectLister(kubernetesConfig(kube.writeKubeconfig('unbound-subs', unbound)), undefined, SUBSCRIPTIONS) }));
    expect(isRuntimeError(err, 'ERR_KUBERNETES_API'), err.message).to.equal(true);
    expect(err.message).to.match(/^cannot list subscriptions\.svc\.io in namespace shop: 403 Forbidden: .*; the pod service account needs get\/list on subscriptions\.svc\.io in its namespace$/);
  });

  it('a real svcd in --mode kubernetes delivers by the Subscriptions it read, and lists them as declarative', async () => {
    const app = await SubscriberApp.start();
    const svcd = await SvcdProcess.start({
      appId: APP_ID,
      args: ['--mode', 'kubernetes', '--namespace', EVENTS, '--kubeconfig', kube.writeKubeconfig('svcd-events', eventsReader), '--internal-grpc-port', String(await freePort()), '--app-port', String(app.port)],
    });
    try {
      const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { subscriptions: Array<{ topic: string; type: string }> };
      expect(meta.subscriptions.map((s) => `${s.topic}:${s.type}`).sort()).to.deep.equal(['audit:DECLARATIVE', 'orders:DECLARATIVE']);
      for (const [topic, body] of [['orders', { rush: true }], ['orders', { rush: false }], ['audit', { who: 'me' }], ['invoices', { n: 1 }]] as const) {
        expect((await svcd.request('POST', `/v1.0/publish/pubsub/${topic}`, body)).status).to.equal(204);
      }
      await Promise.all([app.waitFor('/rush'), app.waitFor('/orders'), app.waitFor('/audit')]);
      expect(app.to('/rush')[0]!.body.data).to.deep.equal({ rush: true });
      expect(app.to('/invoices'), 'scoped to another app: not delivered here').to.have.length(0);
    } finally {
      await svcd.stop();
      await app.stop();
    }
  });
});
