/**
 * App-hosted actors on several real svcd replicas of one app (each with its own app, as pods are): turns of one
 * actor never overlap wherever its calls arrive, its state stays whole, and reminders fire where they are owned —
 * also across a replica's restart.
 */
import { expect } from 'chai';
import { actorStore, SvcdProcess, type ActorStore } from '../support/index.js';
import { ownershipPartitionOf } from '../../src/actors/placement/partitions.js';
import { ActorApp, TurnTracker } from '../actors/actor-app.js';

const FAST = ['--placement-lease-ttl', '1500ms', '--placement-heartbeat-interval', '250ms'];

interface Replica {
  app: ActorApp;
  svcd: SvcdProcess;
}

async function startReplica(store: ActorStore, app: ActorApp, reuse?: SvcdProcess): Promise<SvcdProcess> {
  const svcd = await SvcdProcess.start({
    appId: store.appId,
    ...(reuse ? { resourcesPath: reuse.resourcesPath, dataDir: reuse.dataDir, ports: reuse.ports } : { resources: store.resources }),
    args: ['--app-port', String(app.port), '--internal-grpc-port', '0', ...FAST],
  });
  app.svcdUrl = svcd.httpUrl;
  return svcd;
}

async function ownedPartitions(svcd: SvcdProcess): Promise<Set<number>> {
  const res = await svcd.request('GET', '/v1.0/metadata');
  return new Set(((await res.json()) as { actorRuntime: { partitions: { partition: number }[] } }).actorRuntime.partitions.map((p) => p.partition));
}

async function balanced(replicas: readonly Replica[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const owned = (await Promise.all(replicas.map((r) => ownedPartitions(r.svcd)))).map((s) => s.size);
    if (owned.reduce((a, b) => a + b, 0) === 64 && owned.every((n) => n >= Math.floor(64 / replicas.length))) return;
    if (Date.now() > deadline) throw new Error(`replicas did not balance: ${owned.join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const kind of ['redis', 'postgresql'] as const) {
  describe(`app-hosted actors on several replicas (${kind})`, function () {
    this.timeout(120_000);
    let store: ActorStore;
    const replicas: Replica[] = [];
    const pick = () => replicas[Math.floor(Math.random() * replicas.length)]!.svcd;

    beforeEach(() => {
      store = actorStore(kind, 'replica-actors');
    });

    afterEach(async () => {
      for (const r of replicas.splice(0)) {
        await r.svcd.dispose();
        await r.app.close();
      }
      await store.cleanup();
    });

    it('runs one turn at a time per actor across 3 replicas, and keeps each turn whole', async () => {
      const turns = new TurnTracker();
      for (let i = 0; i < 3; i++) {
        const app = await ActorApp.start({ types: ['Counter'], turns, bumpKeys: 5 });
        replicas.push({ app, svcd: await startReplica(store, app) });
      }
      await balanced(replicas);
      // Five actors owned by each replica, so the calls exercise every replica as owner and as router.
      const owners = await Promise.all(replicas.map((r) => ownedPartitions(r.svcd)));
      const actors: string[] = [];
      for (const owned of owners) {
        for (let i = 0, found = 0; found < 5; i++) {
          const id = `c${i}`;
          if (owned.has(ownershipPartitionOf(id)) && !actors.includes(id)) {
            actors.push(id);
            found++;
          }
        }
      }
      const sent = new Map<string, number>();
      const calls = Array.from({ length: 240 }, (_, i) => actors[i % actors.length]!);
      for (let i = 0; i < calls.length; i += 30) {
        await Promise.all(
          calls.slice(i, i + 30).map(async (id) => {
            const res = await pick().request('PUT', `/v1.0/actors/Counter/${id}/method/hold`, '{}');
            expect(res.status, await res.text()).to.equal(200);
            sent.set(id, (sent.get(id) ?? 0) + 1);
          }),
        );
      }
      expect(turns.overlaps, 'overlapping turns of one actor').to.equal(0);
      expect(turns.turns).to.equal(calls.length);
      for (const id of actors) {
        const keys = await Promise.all(['k0', 'k4'].map(async (k) => (await pick().request('GET', `/v1.0/actors/Counter/${id}/state/${k}`)).text()));
        expect(keys.map(Number), id).to.deep.equal([sent.get(id), sent.get(id)]);
      }
      // The work was spread: every replica's app served turns of the actors its replica owns.
      for (const r of replicas) expect(r.app.count((c) => c.kind === 'method')).to.be.greaterThan(0);
    });

    it('fires each reminder once, where it is owned, also when a replica restarts while they are pending', async () => {
      for (let i = 0; i < 2; i++) {
        const app = await ActorApp.start({ types: ['Counter'] });
        replicas.push({ app, svcd: await startReplica(store, app) });
      }
      await balanced(replicas);
      const actors = Array.from({ length: 30 }, (_, i) => `r${i}`);
      for (const id of actors) {
        const res = await pick().request('POST', `/v1.0/actors/Counter/${id}/reminders/once`, JSON.stringify({ dueTime: '5s' }));
        expect(res.status, await res.text()).to.equal(204);
      }
      // A crash and restart of replica 1 on the same ports and data while every reminder is pending.
      const victim = replicas[1]!;
      await victim.svcd.kill();
      victim.svcd = await startReplica(store, victim.app, victim.svcd);
      await balanced(replicas);
      const fired = () => replicas.flatMap((r) => r.app.calls.filter((c) => c.kind === 'remind'));
      // Whichever app gets the last fire sees the condition hold.
      await Promise.any(replicas.map((r) => r.app.waitFor(() => fired().length >= actors.length, 'every reminder fired', 30_000)));
      await new Promise((r) => setTimeout(r, 1_000)); // a duplicate fire would show up by now
      const byActor = new Map<string, number>();
      for (const c of fired()) byActor.set(c.id, (byActor.get(c.id) ?? 0) + 1);
      expect([...byActor.keys()].sort()).to.deep.equal([...actors].sort());
      expect([...byActor.values()].every((n) => n === 1), JSON.stringify([...byActor])).to.equal(true);
      // Both replicas fired some: each only those of the partitions it owns.
      for (const r of replicas) expect(r.app.count((c) => c.kind === 'remind')).to.be.greaterThan(0);
    });
  });
}
