import { expect } from 'chai';
import { InstanceListingClient } from '@svc/runtime/test-support';
import { ownershipPartitionOf } from '@svc/runtime/actors/placement/partitions.js';
import { ReplicaSet } from './replica-set.js';

for (const store of ['redis', 'postgresql'] as const) {
  describe(`several replicas of one app on ${store}: instance listing`, function () {
    this.timeout(180_000);
    let set: ReplicaSet | undefined;
    const clients: InstanceListingClient[] = [];

    afterEach(async () => {
      for (const c of clients.splice(0)) c.close();
      await set?.close();
      set = undefined;
    });

    it('every replica lists every instance of the app; a purge by filter through one replica purges those the others own', async () => {
      set = await ReplicaSet.start({ store, replicas: 2 });
      const s = set;
      const [first, second] = s.replicas.map((r) => {
        const c = new InstanceListingClient(r.grpcAddress);
        clients.push(c);
        return c;
      }) as [InstanceListingClient, InstanceListingClient];
      const done = Array.from({ length: 40 }, (_, i) => `done-${String(i).padStart(2, '0')}`);
      const waiting = Array.from({ length: 40 }, (_, i) => `wait-${String(i).padStart(2, '0')}`);
      for (const id of done) await s.start('echo', '"x"', id);
      for (const id of waiting) await s.start('approval', undefined, id);
      for (const id of done) expect((await s.waitForCompletion(id)).runtimeStatus, id).to.equal('COMPLETED');
      // The instances are spread over both replicas' partitions (so each listing reads what the other one wrote).
      const owners = await Promise.all(s.replicas.map(async (r) => new Set((await s.placement(r)).partitions.map((p) => p.partition))));
      for (const owned of owners) expect([...done, ...waiting].some((id) => owned.has(ownershipPartitionOf(id)))).to.equal(true);

      const all = [...done, ...waiting].sort();
      for (const rpc of [first, second]) expect((await rpc.listAll(7)).flat()).to.deep.equal(all);
      // The HTTP list (newest update first) of each replica holds every instance, whichever replica wrote it.
      for (const r of s.replicas) {
        const res = await r.request('GET', '/v1.0/workflows/svc?pageSize=1000');
        const body = (await res.json()) as { instances: { instanceID: string; runtimeStatus: string }[] };
        expect(body.instances.map((i) => i.instanceID).sort()).to.deep.equal(all);
        expect(body.instances.filter((i) => i.runtimeStatus === 'COMPLETED').map((i) => i.instanceID).sort()).to.deep.equal(done);
      }

      expect(await first.purge({ runtimeStatus: ['ORCHESTRATION_STATUS_COMPLETED'] })).to.equal(40);
      expect((await second.listAll(1000)).flat()).to.deep.equal(waiting);
      const afterPurge = (await (await s.replicas[1]!.request('GET', '/v1.0/workflows/svc?pageSize=1000')).json()) as { instances: { instanceID: string }[] };
      expect(afterPurge.instances.map((i) => i.instanceID).sort()).to.deep.equal(waiting);
      for (const id of done) for (const r of s.replicas) expect((await s.get(id, r)).status, id).to.equal(404);
    });
  });
}
