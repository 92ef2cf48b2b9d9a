import { expect } from 'chai';
import { OrchestrationStatus } from '@dapr/durabletask-js/orchestration/enum/orchestration-status.enum.js';
import { PurgeInstanceCriteria } from '@dapr/durabletask-js/orchestration/orchestration-purge-criteria.js';
import { eventually, InstanceListingClient, rpcFailure } from '@svc/runtime/test-support';
import { harnessPerSuite, type WorkflowHarness } from './support/harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` over `items`, `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(fn));
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

for (const store of ['sqlite', 'redis', 'postgresql'] as const) {
  describe(`workflow instance listing and purge by filter (${store})`, function () {
    this.timeout(180_000);
    let h: WorkflowHarness;
    let rpc: InstanceListingClient;

    harnessPerSuite({ store }, (started) => {
      h = started;
      rpc = new InstanceListingClient(h.svcd.grpcAddress);
    });
    after(() => rpc?.close());

    const startMany = (ids: readonly string[]) => inParallel(ids, 50, (id) => h.client().scheduleNewOrchestration('approval', undefined, id));
    const exists = async (id: string) => (await h.client().getOrchestrationState(id)) !== undefined;
    const listed = async () => (await rpc.listAll(1000)).flat();

    it('ListInstanceIDs: 1,000 instances, each exactly once across pages in ID order, while others start meanwhile', async () => {
      const ids = Array.from({ length: 1000 }, (_, i) => `list-${String(i).padStart(4, '0')}`);
      await startMany(ids);
      // Started while the listing pages: each sorts right after an early ID, so some land in pages already read.
      const late = Array.from({ length: 200 }, (_, i) => `list-${String(i * 5).padStart(4, '0')}-late`);
      let next = 0;
      const pages = await rpc.listAll(37, () => startMany(late.slice(next, (next += 10))));
      await startMany(late.slice(next));

      const seen = pages.flat();
      expect(new Set(seen).size, 'no ID twice').to.equal(seen.length);
      expect([...seen].sort(byteOrder), 'ascending across pages').to.deep.equal(seen);
      const known = new Set([...ids, ...late]);
      expect(seen.filter((id) => !known.has(id))).to.deep.equal([]);
      expect(ids.filter((id) => !seen.includes(id)), 'none skipped').to.deep.equal([]);
      expect(pages.slice(0, -1).every((p) => p.length === 37)).to.equal(true);

      expect((await listed()).filter((id) => id.startsWith('list-'))).to.have.length(1200);
    });

    it('ListInstanceIDs: 100 by default, at most 1,000 per page, opaque tokens, a forged token is INVALID_ARGUMENT', async () => {
      const first = await rpc.listPage();
      expect(first.instanceIds).to.have.length(100);
      expect(first.continuationToken).to.be.a('string').and.not.equal(first.instanceIds[99]);
      const big = await rpc.listPage({ pageSize: 5000 });
      expect(big.instanceIds).to.have.length(1000);
      const rest = await rpc.listPage({ pageSize: 5000, continuationToken: big.continuationToken! });
      expect(rest.instanceIds).to.have.length(200);
      expect(rest.continuationToken, 'no token on the last page').to.equal(undefined);
      for (const token of ['list-0001', '%%%', Buffer.from('a b').toString('base64url')]) {
        expect((await rpcFailure(rpc.listPage({ continuationToken: token })))?.code, token).to.equal('INVALID_ARGUMENT');
      }
    });

    it('PurgeInstances with a filter: by status and creation window, terminal instances only (the SDK and raw calls)', async () => {
      const client = h.client();
      const t0 = new Date();
      await sleep(5);
      const done = ['a-done-0', 'a-done-1', 'a-done-2', 'a-done-3'];
      const failed = ['a-failed-0', 'a-failed-1', 'a-failed-2'];
      const terminated = ['a-terminated-0', 'a-terminated-1', 'a-terminated-2'];
      const running = ['a-running-0', 'a-running-1'];
      for (const id of done) await client.scheduleNewOrchestration('echo', 'x', id);
      for (const id of failed) await client.scheduleNewOrchestration('failing', undefined, id);
      for (const id of [...terminated, ...running]) await client.scheduleNewOrchestration('approval', undefined, id);
      for (const id of terminated) await client.terminateOrchestration(id, 'stop');
      for (const id of [...done, ...failed, ...terminated]) await client.waitForOrchestrationCompletion(id, false, 60);
      for (const id of running) await client.waitForOrchestrationStart(id, false, 60);
      await sleep(5);
      const t1 = new Date();
      await sleep(5);
      const later = ['b-done-0', 'b-done-1', 'b-done-2'];
      for (const id of later) await client.scheduleNewOrchestration('echo', 'y', id);
      for (const id of later) await client.waitForOrchestrationCompletion(id, false, 60);

      // The SDK's purge by criteria: FAILED ones created since t0.
      const criteria = new PurgeInstanceCriteria();
      criteria.setCreatedTimeFrom(t0);
      criteria.setRuntimeStatusList([OrchestrationStatus.FAILED]);
      expect((await client.purgeOrchestration(criteria))?.deletedInstanceCount).to.equal(3);
      for (const id of failed) expect(await exists(id), id).to.equal(false);

      // A window [t0, t1) and a status list that names RUNNING too: only the completed ones of the window go.
      expect(await rpc.purge({ createdTimeFrom: t0, createdTimeTo: t1, runtimeStatus: ['ORCHESTRATION_STATUS_COMPLETED', 'ORCHESTRATION_STATUS_RUNNING'] })).to.equal(4);
      for (const id of done) expect(await exists(id), id).to.equal(false);
      for (const id of [...later, ...terminated, ...running]) expect(await exists(id), id).to.equal(true);

      // No status: every terminal instance since t0; the running ones stay, listed and untouched.
      expect(await rpc.purge({ createdTimeFrom: t0 })).to.equal(6);
      const remaining = (await listed()).filter((id) => /^[ab]-/.test(id));
      expect(remaining).to.deep.equal(running);
      for (const id of running) expect((await client.getOrchestrationState(id))?.runtimeStatus).to.equal(OrchestrationStatus.RUNNING);
    });

    it('PurgeInstances with a filter and recursive: a matching parent takes its sub-workflow along', async () => {
      const client = h.client();
      const trees = ['tree-r', 'tree-n'];
      const created = new Map<string, Date>();
      for (const parent of trees) {
        await client.scheduleNewOrchestration('parent', undefined, parent);
        // The parent's first turn creates the child; until then the child does not exist (a wait would end at once).
        await eventually(`${parent}-child created`, () => exists(`${parent}-child`), 30_000);
        await client.raiseOrchestrationEvent(`${parent}-child`, 'approval', 'ok');
        await client.waitForOrchestrationCompletion(parent, false, 60);
        for (const id of [parent, `${parent}-child`]) created.set(id, (await client.getOrchestrationState(id))!.createdAt);
        expect(created.get(`${parent}-child`)!.getTime(), 'the child is created after its parent').to.be.greaterThan(created.get(parent)!.getTime());
      }
      // A window of one millisecond: the parent's creation time, not the child's.
      const onlyParent = (parent: string) => ({ createdTimeFrom: created.get(parent)!, createdTimeTo: new Date(created.get(parent)!.getTime() + 1), runtimeStatus: ['ORCHESTRATION_STATUS_COMPLETED'] as const });
      expect(await rpc.purge(onlyParent('tree-r'), true)).to.equal(2);
      expect([await exists('tree-r'), await exists('tree-r-child')]).to.deep.equal([false, false]);
      expect(await rpc.purge(onlyParent('tree-n'), false)).to.equal(1);
      expect([await exists('tree-n'), await exists('tree-n-child')]).to.deep.equal([false, true]);
      expect(await listed()).to.not.include.members(['tree-r', 'tree-r-child', 'tree-n']);
      expect(await listed()).to.include('tree-n-child');
    });
  });
}
