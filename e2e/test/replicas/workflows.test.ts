import { expect } from 'chai';
import { ownershipPartitionOf } from '@svc/runtime/actors/placement/partitions.js';
import type { WorkerReports } from '../workflow/support/worker-process.js';
import { ReplicaSet } from './replica-set.js';

/** Short leases keep the failover cases quick; one case runs on the defaults (3 s lease, 1 s heartbeat). */
const FAST = ['--placement-lease-ttl', '1500ms', '--placement-heartbeat-interval', '250ms'];

/**
 * Each activity result recorded once: no delivered history ever held two results for one task. The worker reports
 * each history it was given apart from its answer, so the report of the final one may come after the completion.
 */
async function expectRecordedOnce(reports: WorkerReports, instanceId: string, steps: number): Promise<void> {
  await reports.seen('turn', (t) => t.instanceId === instanceId && Object.keys(t.results).length === steps);
  const turns = reports.of('turn', instanceId);
  for (const turn of turns) for (const [task, n] of Object.entries(turn.results)) expect(n, `${instanceId} task ${task}`).to.equal(1);
  expect(Math.max(0, ...turns.map((t) => Object.keys(t.results).length))).to.equal(steps);
}

for (const store of ['redis', 'postgresql'] as const) {
  describe(`several replicas of one app on ${store}: workflows`, function () {
    this.timeout(180_000);
    let set: ReplicaSet | undefined;

    afterEach(async () => {
      await set?.close();
      set = undefined;
    });

    it('3 replicas: workflows started, raised, paused, resumed, terminated and purged through random replicas complete once each', async () => {
      set = await ReplicaSet.start({ store, replicas: 3, args: FAST });
      const s = set;
      const views = await Promise.all(s.replicas.map((r) => s.placement(r)));
      expect(views.map((v) => v.placement)).to.deep.equal(['multi-host', 'multi-host', 'multi-host']);

      const chains = Array.from({ length: 9 }, (_, i) => `chain-${i}`);
      const approvals = Array.from({ length: 6 }, (_, i) => `approve-${i}`);
      const doomed = ['doomed-0', 'doomed-1'];
      for (const id of chains) await s.start('steps', JSON.stringify({ count: 3 }), id);
      for (const id of approvals) await s.start('approval', undefined, id);
      for (const id of doomed) await s.start('sleeper', '600000', id);

      // Pause and resume each approval through random replicas; the status is the owner's wherever it is read.
      for (const id of approvals) {
        await s.client().waitForOrchestrationStart(id, false, 30);
        expect(await s.op(id, 'pause')).to.equal(202);
        await s.client().suspendOrchestration(id); // gRPC: answers once the owner shows SUSPENDED
        for (const r of s.replicas) expect((await s.get(id, r)).body.runtimeStatus).to.equal('SUSPENDED');
        expect(await s.op(id, 'resume')).to.equal(202);
        await s.client().resumeOrchestration(id);
        expect(await s.op(id, 'raiseEvent/approval', JSON.stringify(`ok-${id}`))).to.equal(202);
      }
      for (const id of doomed) {
        await s.client().waitForOrchestrationStart(id, false, 30);
        expect(await s.op(id, 'terminate')).to.equal(202);
      }

      for (const id of chains) {
        const done = await s.waitForCompletion(id);
        expect(done.runtimeStatus, id).to.equal('COMPLETED');
        const tokens = JSON.parse(done.properties['svc.workflow.output']!) as string[];
        expect(tokens.map((t) => Number(t.split(':')[0]))).to.deep.equal([1, 2, 3]);
        await expectRecordedOnce(s.reports, id, 3);
      }
      for (const id of approvals) {
        const done = await s.waitForCompletion(id);
        expect(done.runtimeStatus, id).to.equal('COMPLETED');
        expect(JSON.parse(done.properties['svc.workflow.output']!)).to.deep.equal({ decision: `ok-${id}` });
      }
      for (const id of doomed) {
        expect((await s.waitForCompletion(id)).runtimeStatus).to.equal('TERMINATED');
        expect(await s.op(id, 'purge')).to.equal(202);
        for (const r of s.replicas) expect((await s.get(id, r)).status, `${id} read through every replica after purge`).to.equal(404);
      }
      // Exactly once: each chain ran each of its activities once (no crash here, so no re-run either).
      for (const id of chains) {
        await s.reports.seen('activity-done', () => s.reports.of('activity-done', id).length >= 3);
        expect(s.reports.of('activity-done', id)).to.have.length(3);
      }
    });

    it('an owner without workers hands its work to a replica that has one', async () => {
      set = await ReplicaSet.start({ store, replicas: 2, args: FAST, workers: false });
      const s = set;
      await s.startWorker(0);
      // Instances land on both replicas' partitions; only replica 0 has a worker.
      const ids = Array.from({ length: 8 }, (_, i) => `lonely-${i}`);
      for (const id of ids) await s.start('steps', JSON.stringify({ count: 2 }), id, s.replicas[1]);
      const ownedBy1 = new Set((await s.placement(s.replicas[1]!)).partitions.map((p) => p.partition));
      expect(ids.filter((id) => ownedBy1.has(ownershipPartitionOf(id))).length, 'instances owned by the replica without a worker').to.be.greaterThan(0);
      for (const id of ids) {
        expect((await s.waitForCompletion(id)).runtimeStatus, id).to.equal('COMPLETED');
        await expectRecordedOnce(s.reports, id, 2);
      }
    });

    it('kill -9 of a replica under load: its instances finish on the others, each activity result recorded once', async () => {
      set = await ReplicaSet.start({ store, replicas: 2 }); // default lease and heartbeat: failover within 5 s
      const s = set;
      const ids = Array.from({ length: 12 }, (_, i) => `load-${i}`);
      for (const [i, id] of ids.entries()) await s.start('steps', JSON.stringify({ count: 4, sleepMs: 150 }), id, s.replicas[i % 2]);
      await s.reports.seen('activity-done', () => s.reports.of('activity-done').length >= 10);
      const killedAt = Date.now();
      await s.kill(1);
      let last = 0;
      for (const id of ids) {
        const done = await s.waitForCompletion(id, 90);
        expect(done.runtimeStatus, id).to.equal('COMPLETED');
        last = Math.max(last, Date.parse(done.lastUpdatedAt));
        await expectRecordedOnce(s.reports, id, 4);
      }
      const reruns = s.reports.of('activity-start').length - ids.length * 4;
      console.log(`      all ${ids.length} instances completed ${last - killedAt} ms after the kill; ${reruns} activity re-runs`);
      await s.balanced();
    });

    it('a replica stopped gracefully (a rolling update) hands its instances over at once; nothing is lost', async () => {
      set = await ReplicaSet.start({ store, replicas: 2 });
      const s = set;
      const ids = Array.from({ length: 10 }, (_, i) => `rolling-${i}`);
      for (const [i, id] of ids.entries()) await s.start('steps', JSON.stringify({ count: 3, sleepMs: 100 }), id, s.replicas[i % 2]);
      await s.reports.seen('activity-done', () => s.reports.of('activity-done').length >= 5);
      const stoppedAt = Date.now();
      await s.stop(1);
      // Handed over (released and left), not waited out: the survivor claims without the lease lapsing.
      expect(s.replicas[1]!.output).to.contain('placement: partitions handed over');
      await s.balanced();
      console.log(`      the remaining replica owned all 64 partitions ${Date.now() - stoppedAt} ms after the stop began`);
      for (const id of ids) {
        expect((await s.waitForCompletion(id)).runtimeStatus, id).to.equal('COMPLETED');
        await expectRecordedOnce(s.reports, id, 3);
      }
    });

    it('a replica frozen (SIGSTOP) past its lease commits nothing after it thaws; its instances finish on the other', async () => {
      set = await ReplicaSet.start({ store, replicas: 2, args: FAST });
      const s = set;
      const ids = Array.from({ length: 10 }, (_, i) => `frozen-${i}`);
      for (const id of ids) await s.start('steps', JSON.stringify({ count: 3, sleepMs: 100 }), id, s.replicas[0]);
      await s.reports.seen('activity-done', () => s.reports.of('activity-done').length >= 5);
      s.freeze(1);
      // Its partitions move to replica 0 once its lease (1.5 s) lapses.
      await s.balanced();
      for (const id of ids) expect((await s.waitForCompletion(id)).runtimeStatus, id).to.equal('COMPLETED');
      s.thaw(1);
      await s.balanced().catch((err: unknown) => {
        console.log(s.replicas[1]!.output.split('\n').slice(-15).join('\n'));
        throw err;
      });
      const frozen = s.replicas[1]!;
      await new Promise((r) => setTimeout(r, 500));
      expect(frozen.output).to.contain('partition ownership lost');
      expect(await s.metric(1, 'svc_actor_placement_partitions_lost_total')).to.be.greaterThan(0);
      for (const id of ids) {
        await expectRecordedOnce(s.reports, id, 3);
        expect((await s.get(id, frozen)).body.runtimeStatus, `${id} read through the thawed replica`).to.equal('COMPLETED');
      }
    });
  });
}
