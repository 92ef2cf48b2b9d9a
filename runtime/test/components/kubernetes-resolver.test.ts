import { expect } from 'chai';
import { KubernetesResolver, sidecarOf, type PodView } from '../../src/components/name-resolution/kubernetes-resolver.js';
import type { ListWatchSource, WatchEvent } from '../../src/components/name-resolution/list-watch.js';
import { createLogger } from '../../src/log/logger.js';

const log = createLogger({ level: 'error', json: true });

function pod(uid: string, appId: string, o: { ip?: string; ready?: boolean; deleting?: boolean; port?: string } = {}): PodView {
  return {
    metadata: {
      uid,
      resourceVersion: '1',
      labels: { 'svc.io/app-id': appId },
      annotations: o.port ? { 'svc.io/internal-grpc-port': o.port } : {},
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    status: { podIP: o.ip ?? '10.0.0.1', conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}

describe('Kubernetes name resolution', () => {
  it('takes a pod while it is Ready with an IP and not being deleted, at its internal port annotation or 50002', () => {
    expect(sidecarOf(pod('a', 'orders'))).to.deep.equal({ appId: 'orders', address: '10.0.0.1:50002' });
    expect(sidecarOf(pod('a', 'orders', { port: '50010' })).address).to.equal('10.0.0.1:50010');
    expect(sidecarOf(pod('a', 'orders', { ip: 'fd00::5' })).address).to.equal('[fd00::5]:50002');
    expect(sidecarOf(pod('a', 'orders', { ready: false })).address).to.equal(undefined);
    expect(sidecarOf(pod('a', 'orders', { deleting: true })).address).to.equal(undefined);
    expect(sidecarOf({ metadata: { uid: 'p', labels: { 'svc.io/app-id': 'orders' } }, status: { conditions: [{ type: 'Ready', status: 'True' }] } }).address).to.equal(undefined);
  });

  it('starts one informer per namespace on first resolve, and answers each app id from it', async () => {
    const watched: string[] = [];
    const sources: Record<string, PodView[]> = { shop: [pod('1', 'orders', { ip: '10.0.0.1' }), pod('2', 'orders', { ip: '10.0.0.2' }), pod('3', 'cart', { ip: '10.0.0.3' })], other: [] };
    let connects = 0;
    const resolver = new KubernetesResolver({
      connect: () => {
        connects++;
        return Promise.resolve((namespace: string): ListWatchSource<PodView> => ({
          list: () => Promise.resolve({ items: sources[namespace] ?? [], resourceVersion: '5' }),
          watch: (_rv: string, _onEvent: (e: WatchEvent<PodView>) => void) => {
            watched.push(namespace);
            return { stop: () => undefined };
          },
        }));
      },
      log,
    });
    try {
      expect(await resolver.resolve('orders', 'shop')).to.deep.equal(['10.0.0.1:50002', '10.0.0.2:50002']);
      expect(await resolver.resolve('cart', 'shop')).to.deep.equal(['10.0.0.3:50002']);
      expect(await resolver.resolve('orders', 'other')).to.deep.equal([]);
      expect(watched).to.deep.equal(['shop', 'other']);
      expect(connects).to.equal(1);
      expect(await resolver.sharedSecret()).to.equal(undefined);
    } finally {
      await resolver.close();
    }
  });
});
