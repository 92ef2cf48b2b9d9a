/**
 * Service invocation in --mode kubernetes against a real kube-apiserver (and etcd), with the chart's RBAC for
 * svcd and nothing else: name resolution follows the labelled pods through list+watch as their status changes
 * (set through the status subresource: nothing runs the pods here); the caller identity has the API server review
 * real TokenRequest tokens bound to pods; and two real svcd processes, one calling the other through
 * `/v1.0/invoke`, find and authenticate each other through the API server.
 */
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { eventually, freePort, SvcdProcess } from '@svc/runtime/test-support';
import type { NameResolver } from '@svc/runtime/components/contracts/name-resolution.js';
import { createNameResolver } from '@svc/runtime/components/name-resolution/create-resolver.js';
import { isRuntimeError } from '@svc/runtime/errors/runtime-error.js';
import { apiServerReview, CALLER_TOKEN_METADATA, KubernetesIdentity } from '@svc/runtime/invocation/kubernetes-identity.js';
import { createLogger } from '@svc/runtime/log/logger.js';
import { installCrds, renderChart } from '../support/chart.js';
import { failureOf } from '../support/failure-of.js';
import { KubeApiServer } from '../support/kube-apiserver.js';
import type { KubeObject } from '../support/kube-client.js';
import { namespaceObject, serviceAccountObject } from '../support/kube-objects.js';

const SHOP = 'shop';
const BANK = 'bank';
const AUDIENCE = 'svc.io/invoke';
const log = createLogger({ level: 'error', json: true });

interface PodOptions {
  readonly serviceAccount: string;
  /** The injected svcd's SVC_APP_ID (default: the label). */
  readonly svcdAppId?: string;
  readonly internalPort?: number;
  /** A pod bound to a node is deleted gracefully: with no kubelet here, it stays terminating until forced. */
  readonly nodeName?: string;
}

function podObject(name: string, appId: string, o: PodOptions): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: SHOP, name, labels: { 'svc.io/app-id': appId }, annotations: o.internalPort ? { 'svc.io/internal-grpc-port': String(o.internalPort) } : {} },
    spec: {
      serviceAccountName: o.serviceAccount,
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      containers: [
        { name: 'app', image: 'example/app:1' },
        { name: 'svcd', image: 'svc/svcd:test', env: [{ name: 'SVC_APP_ID', value: o.svcdAppId ?? appId }] },
      ],
    },
  };
}

describe('service invocation in --mode kubernetes against a real kube-apiserver', function () {
  this.timeout(180_000);
  let kube: KubeApiServer;
  /** kubeconfig files of shop's service accounts: orders and cart are the chart's componentReaders, stranger is not. */
  const kubeconfigs: Record<string, string> = {};
  const resolvers: NameResolver[] = [];
  let dir: string;

  const podsPath = `/api/v1/namespaces/${SHOP}/pods`;
  const createPod = async (name: string, appId: string, o: PodOptions): Promise<{ name: string; uid: string }> => {
    const created = await kube.admin.apply(podObject(name, appId, o));
    return { name, uid: (created.body.metadata as { uid: string }).uid };
  };
  const setStatus = async (name: string, ready: boolean, ip: string): Promise<void> => {
    const status = { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] };
    const res = await kube.admin.request('PATCH', `${podsPath}/${name}/status`, { status }, 'application/merge-patch+json');
    expect(res.status, res.text).to.equal(200);
  };
  const deletePod = async (name: string, gracePeriodSeconds?: number): Promise<void> => {
    const query = gracePeriodSeconds === undefined ? '' : `?gracePeriodSeconds=${gracePeriodSeconds}`;
    const res = await kube.admin.request('DELETE', `${podsPath}/${name}${query}`);
    expect(res.status, res.text).to.be.oneOf([200, 202]);
  };
  const resolver = async (serviceAccount: string): Promise<NameResolver> => {
    const r = await createNameResolver(undefined, { mode: 'kubernetes', kubeconfig: kubeconfigs[serviceAccount], actorStore: undefined, log });
    resolvers.push(r);
    return r;
  };
  const resolvesTo = (r: NameResolver, appId: string, expected: string[]) =>
    eventually(`${appId} resolves to [${expected.join(', ')}]`, async () => JSON.stringify([...(await r.resolve(appId, SHOP))].sort()) === JSON.stringify(expected));
  /** A token the way the injector projects it: for audience svc.io/invoke, bound to the pod. */
  const invokeToken = async (serviceAccount: string, pod: { name: string; uid: string } | undefined, audiences = [AUDIENCE]): Promise<string> =>
    (await kube.serviceAccountToken(SHOP, serviceAccount, { audiences, ...(pod ? { pod } : {}) })).token!;
  const tokenFile = (name: string, token: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, token);
    return file;
  };
  const presenting = (token: string) => (name: string) => (name === CALLER_TOKEN_METADATA ? token : undefined);
  const callee = (serviceAccount: string) => new KubernetesIdentity({ tokenFile: '/nonexistent', review: () => apiServerReview(kubeconfigs[serviceAccount]) });

  before(async () => {
    kube = await KubeApiServer.start();
    dir = kube.dir;
    const readers = ['orders', 'cart'].map((serviceAccount) => ({ namespace: SHOP, serviceAccount }));
    const chart = renderChart({ release: 'svc', namespace: 'svc-system', values: { 'sidecar.componentReaders': readers } });
    await installCrds(kube.admin, chart);
    for (const ns of [SHOP, BANK]) await kube.admin.apply(namespaceObject(ns));
    // The chart's RBAC for svcd, exactly as rendered.
    for (const obj of chart.filter((o) => /-(components-reader|token-reviewer)/.test(o.metadata.name ?? ''))) await kube.admin.apply(obj);
    for (const sa of ['orders', 'cart', 'stranger']) {
      await kube.admin.apply(serviceAccountObject(SHOP, sa));
      kubeconfigs[sa] = kube.writeKubeconfig(sa, await kube.serviceAccountToken(SHOP, sa));
    }
  });

  after(async () => {
    for (const r of resolvers) await r.close();
    await kube?.stop();
  });

  it('resolves an app id to its Ready pods, following adds, readiness, termination and deletion', async () => {
    const r = await resolver('orders');
    expect(r.kind).to.equal('kubernetes');
    expect(await r.resolve('cart', SHOP)).to.deep.equal([]);
    await createPod('cart-1', 'cart', { serviceAccount: 'cart', nodeName: 'node-a' });
    await resolvesTo(r, 'cart', []);
    await setStatus('cart-1', true, '10.88.0.11');
    await resolvesTo(r, 'cart', ['10.88.0.11:50002']);
    await createPod('cart-2', 'cart', { serviceAccount: 'cart', nodeName: 'node-a', internalPort: 50010 });
    await setStatus('cart-2', true, '10.88.0.12');
    await createPod('other-1', 'inventory', { serviceAccount: 'cart' });
    await setStatus('other-1', true, '10.88.0.13');
    await resolvesTo(r, 'cart', ['10.88.0.11:50002', '10.88.0.12:50010']);
    await setStatus('cart-1', false, '10.88.0.11');
    await resolvesTo(r, 'cart', ['10.88.0.12:50010']);
    // Graceful deletion of a pod on a node: terminating, still Ready, no longer called.
    await deletePod('cart-2', 30);
    await resolvesTo(r, 'cart', []);
    await setStatus('cart-1', true, '10.88.0.11');
    await resolvesTo(r, 'cart', ['10.88.0.11:50002']);
    await deletePod('cart-1', 0);
    await deletePod('cart-2', 0);
    await resolvesTo(r, 'cart', []);
    expect(await r.resolve('inventory', SHOP)).to.deep.equal(['10.88.0.13:50002']);
    await deletePod('other-1');
  });

  it('says which grant is missing: pods of its namespace without the RoleBinding, another namespace without the cross-namespace role', async () => {
    const own = await failureOf((await resolver('stranger')).resolve('cart', SHOP));
    expect(own.message).to.match(/^cannot list pods in namespace shop: 403 Forbidden: .*; svcd's service account needs get\/list\/watch on pods in namespace shop/);
    const other = await failureOf((await resolver('orders')).resolve('cart', BANK));
    expect(other.message).to.match(/^cannot list pods in namespace bank: 403 Forbidden: .*sidecar\.crossNamespaceInvocation/);
    // The chart's cross-namespace role, bound to orders, lets it resolve there.
    const across = renderChart({ release: 'svc', namespace: 'svc-system', values: { 'sidecar.componentReaders': [{ namespace: SHOP, serviceAccount: 'orders' }], 'sidecar.crossNamespaceInvocation': true } });
    for (const obj of across.filter((o) => o.metadata.name === 'svc-pods-reader')) await kube.admin.apply(obj);
    await eventually('orders may list the pods of bank', async () => (await resolver('orders')).resolve('cart', BANK).then(() => true, () => false));
  });

  it('authenticates a caller by the TokenReview of its pod-bound token, and takes the app from the pod', async () => {
    const pod = await createPod('orders-1', 'orders', { serviceAccount: 'orders' });
    const caller = new KubernetesIdentity({ tokenFile: tokenFile('orders-token', await invokeToken('orders', pod)), review: () => Promise.reject(new Error('a caller reviews nothing')) });
    const metadata = await caller.credentials();
    const read = (name: string) => metadata[name];
    const id = callee('cart');
    expect(await id.authenticate(read, { appId: 'orders', namespace: SHOP })).to.deep.equal({ appId: 'orders', namespace: SHOP });
    const claim = await failureOf(id.authenticate(read, { appId: 'payments', namespace: SHOP }));
    expect(isRuntimeError(claim, 'ERR_DIRECT_INVOKE_CALLER_UNAUTHENTICATED'), claim.message).to.equal(true);
    expect(claim.message).to.contain('its token belongs to app orders in namespace shop (pod orders-1), not payments in shop');
  });

  it('refuses a token for the API server, one bound to no pod, one of a deleted pod, and one of a relabelled pod', async () => {
    const id = callee('cart');
    const claim = { appId: 'orders', namespace: SHOP };
    const pod = await createPod('orders-2', 'orders', { serviceAccount: 'orders' });
    const refusal = async (token: string) => {
      const err = await failureOf(id.authenticate(presenting(token), claim));
      expect(isRuntimeError(err, 'ERR_DIRECT_INVOKE_CALLER_UNAUTHENTICATED'), err.message).to.equal(true);
      return err.message;
    };
    expect(await refusal(await invokeToken('orders', pod, []))).to.match(/the API server does not accept its token/);
    expect(await refusal(await invokeToken('orders', undefined))).to.contain("its token is not a pod's ServiceAccount token (user system:serviceaccount:shop:orders)");
    const gone = await createPod('orders-gone', 'orders', { serviceAccount: 'orders' });
    const goneToken = await invokeToken('orders', gone);
    await deletePod('orders-gone', 0);
    // The API server itself refuses a token whose pod is gone.
    expect(await refusal(goneToken)).to.match(/the API server does not accept its token .*invalidated/);
    const liar = await createPod('liar-1', 'orders', { serviceAccount: 'orders', svcdAppId: 'inventory' });
    expect(await refusal(await invokeToken('orders', liar))).to.contain('its pod shop/liar-1 is labelled svc.io/app-id=orders but its svcd runs as inventory');
  });

  it('a called svcd without the token-reviewer grant answers ERR_KUBERNETES_API naming it', async () => {
    const pod = await createPod('orders-3', 'orders', { serviceAccount: 'orders' });
    const err = await failureOf(callee('stranger').authenticate(presenting(await invokeToken('orders', pod)), { appId: 'orders', namespace: SHOP }));
    expect(isRuntimeError(err, 'ERR_KUBERNETES_API'), err.message).to.equal(true);
    expect(err.message).to.match(/^the called sidecar cannot review the caller's token: 403 Forbidden: .*; svcd's service account needs create on tokenreviews\.authentication\.k8s\.io/);
  });

  it('two real svcd: orders invokes cart through the pods and tokens of the API server', async () => {
    const app = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ path: req.url, caller: req.headers['dapr-caller-app-id'], namespace: req.headers['dapr-caller-namespace'] }));
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const [cartPort, ordersPort] = [await freePort(), await freePort()];
    const ordersPod = await createPod('orders-svcd', 'orders', { serviceAccount: 'orders' });
    const common = ['--mode', 'kubernetes', '--namespace', SHOP];
    const cart = await SvcdProcess.start({ appId: 'cart', args: [...common, '--kubeconfig', kubeconfigs.cart!, '--internal-grpc-port', String(cartPort), '--app-port', String((app.address() as AddressInfo).port)] });
    const orders = await SvcdProcess.start({
      appId: 'orders',
      args: [...common, '--kubeconfig', kubeconfigs.orders!, '--internal-grpc-port', String(ordersPort), '--invoke-token-file', tokenFile('orders-svcd-token', await invokeToken('orders', ordersPod))],
    });
    try {
      await createPod('cart-svcd', 'cart', { serviceAccount: 'cart', internalPort: cartPort });
      await setStatus('cart-svcd', true, '127.0.0.1');
      let answer: Response | undefined;
      await eventually('cart is found and answers', async () => (answer = await orders.request('POST', '/v1.0/invoke/cart/method/hello?x=1', 'hi')).status === 200);
      expect(await answer!.json()).to.deep.equal({ path: '/hello?x=1', caller: 'orders', namespace: SHOP });
      // Not Ready: not called.
      await setStatus('cart-svcd', false, '127.0.0.1');
      await eventually('cart is no longer found', async () => (await orders.request('POST', '/v1.0/invoke/cart/method/hello')).status === 404);
    } finally {
      await orders.dispose();
      await cart.dispose();
      app.close();
    }
  });
});
