import { expect } from 'chai';
import { Registry } from 'prom-client';
import { ActorHost } from '../../src/actors/host.js';
import { ComponentManager } from '../../src/components/manager.js';
import { ComponentRegistry } from '../../src/components/registry.js';
import { parseComponentSpec } from '../../src/components/spec.js';
import { isRuntimeError } from '../../src/errors/runtime-error.js';
import { createLogger } from '../../src/log/logger.js';
import { InMemoryStateStore } from '../../src/state/in-memory.js';
import type { StateFeature } from '../../src/components/contracts/state-store.js';

const log = createLogger({ level: 'error', json: true });

/** A store that does not offer transactions (as some pluggable stores do not). */
class PlainStore extends InMemoryStateStore {
  override features(): readonly StateFeature[] {
    return ['ETAG'];
  }
}

async function hostWith(stores: { name: string; type: string; actor: boolean }[]): Promise<ActorHost> {
  const registry = new ComponentRegistry();
  registry.register({ type: 'state.memory-tx', category: 'state', origin: 'built-in', create: () => Promise.resolve(new InMemoryStateStore()) });
  registry.register({ type: 'state.memory-plain', category: 'state', origin: 'built-in', create: () => Promise.resolve(new PlainStore()) });
  const components = new ComponentManager(registry, { appId: 'app', dataDir: '/tmp', resourcesPaths: [], log }, 5000);
  const specs = stores.map((s) =>
    parseComponentSpec(
      {
        apiVersion: 'svc.io/v1alpha1',
        kind: 'Component',
        metadata: { name: s.name },
        spec: { type: s.type, version: 'v1', metadata: s.actor ? [{ name: 'actorStateStore', value: 'true' }] : [] },
      },
      `${s.name}.yaml`,
    ),
  );
  await components.initAll(specs, log);
  return new ActorHost({ appId: 'app', components, log, metrics: new Registry(), idleTimeoutMs: 1000, appPort: 0, appMaxAnswerBytes: 4 << 20, appConfigWaitMs: 0,
    drainTimeoutMs: 1000,
    placement: { internal: { services: { addService: () => undefined }, address: () => '127.0.0.1:1' }, leaseTtlMs: 3000, heartbeatIntervalMs: 1000, workers: () => 0, peerHandlers: {} },
  });
}

describe('actors: choosing the actor state store', () => {
  it('refuses a store without transactions, naming it', async () => {
    const host = await hostWith([{ name: 'plain', type: 'state.memory-plain', actor: true }]);
    const err = await host.start().catch((e: unknown) => e);
    expect(isRuntimeError(err, 'ERR_ACTOR_STATE_STORE_INVALID')).to.equal(true);
    expect((err as Error).message).to.contain('plain').and.to.contain('not transactional');
  });

  it('refuses two marked stores', async () => {
    const host = await hostWith([
      { name: 'one', type: 'state.memory-tx', actor: true },
      { name: 'two', type: 'state.memory-tx', actor: true },
    ]);
    const err = await host.start().catch((e: unknown) => e);
    expect(isRuntimeError(err, 'ERR_ACTOR_STATE_STORE_INVALID')).to.equal(true);
  });

  it('runs without actors when no store is marked, and with the marked one otherwise', async () => {
    const none = await hostWith([{ name: 'x', type: 'state.memory-tx', actor: false }]);
    await none.start();
    expect(none.runtime).to.equal(undefined);
    expect(() => none.requireRuntime()).to.throw().that.satisfies((e: unknown) => isRuntimeError(e, 'ERR_ACTOR_RUNTIME_NOT_FOUND'));
    const one = await hostWith([
      { name: 'x', type: 'state.memory-tx', actor: false },
      { name: 'y', type: 'state.memory-tx', actor: true },
    ]);
    await one.start();
    await one.serve();
    expect(one.runtime).to.not.equal(undefined);
    expect(one.metadata()).to.deep.include({ actors: [] });
    expect((one.metadata().actorRuntime as { placement: string }).placement).to.equal('single-host');
    await one.stop();
  });
});
