/**
 * The dispatcher's dormant batches (dormant-batches.ts) with a fake `wakeDormant` standing in for the instance's
 * actor: what is kept while no worker is connected, in which order and how many are woken, and what a withdrawal
 * or a failed wake leaves to the instance's lease.
 */
import { expect } from 'chai';
import { WorkDispatcher } from '../../src/workflow/dispatcher.js';
import type { OrchestrationItem, WorkItem, WorkerConnection } from '../../src/workflow/work-items.js';

const batch = (instanceId: string): OrchestrationItem => ({ kind: 'orchestration', instanceId, name: 'wf', generation: 1, historyLength: 0, pastEvents: [], newEvents: [], seqs: [0] });

/** A worker that takes everything it is sent. */
const worker = (id: number): WorkerConnection & { items: WorkItem[] } => {
  const items: WorkItem[] = [];
  return { id, items, send: (item) => items.push(item) > 0, close: () => undefined };
};

/** The dispatcher, with wakes that the test settles by hand and the leases it woke. */
function setUp(maxPerWorker = 2) {
  const wakes: { instanceId: string; settle: (ok: boolean) => void }[] = [];
  const leasesWoken: string[] = [];
  const d: WorkDispatcher = new WorkDispatcher(
    { maxPerWorker },
    {
      orchestrationLeft: (instanceId) => leasesWoken.push(instanceId),
      wakeDormant: (instanceId) =>
        new Promise<void>((resolve, reject) => {
          wakes.push({ instanceId, settle: (ok) => (ok ? resolve() : reject(new Error('store down'))) });
        }),
    },
  );
  /** What the instance's actor does on a wake: builds the batch again and offers it, then the turn ends. */
  const rebuild = async (instanceId: string) => {
    const wake = wakes.find((w) => w.instanceId === instanceId)!;
    d.offer(batch(instanceId));
    wake.settle(true);
    await new Promise((r) => setImmediate(r));
  };
  return { d, wakes, leasesWoken, rebuild };
}

describe('workflow dormant batches', () => {
  it('keeps a batch offered while no worker is connected as its instance id: held for the lease, refused twice, woken when a worker comes', () => {
    const { d, wakes } = setUp();
    expect(d.offer(batch('a'))).to.equal(true);
    expect(d.offer(batch('a')), 'already held').to.equal(false);
    expect(d.hasOrchestration('a')).to.equal(true);
    expect(d.orchestrationWorker('a'), 'with no worker').to.equal(undefined);
    expect(wakes).to.have.length(0);
    d.connect(worker(1));
    expect(wakes.map((w) => w.instanceId)).to.deep.equal(['a']);
    expect(d.hasOrchestration('a'), 'being built again: the actor may offer it').to.equal(false);
  });

  it('wakes the oldest first, as many as the workers have room for, and the next as one answers', async () => {
    const { d, wakes, rebuild } = setUp(2);
    for (const id of ['a', 'b', 'c', 'd']) d.offer(batch(id));
    const w = worker(1);
    d.connect(w);
    expect(wakes.map((x) => x.instanceId), 'room for two').to.deep.equal(['a', 'b']);
    await rebuild('a');
    await rebuild('b');
    expect(w.items.map((i) => i.instanceId)).to.deep.equal(['a', 'b']);
    expect(wakes, 'no room left').to.have.length(2);
    const claim = d.claimOrchestration('a');
    expect('item' in claim).to.equal(true);
    expect(wakes.map((x) => x.instanceId), 'the answer made room').to.deep.equal(['a', 'b', 'c']);
    await rebuild('c');
    expect(w.items.map((i) => i.instanceId)).to.deep.equal(['a', 'b', 'c']);
  });

  it('gives work offered once a worker is connected the room first', async () => {
    const { d, wakes, rebuild } = setUp(2);
    d.offer(batch('old'));
    const w = worker(1);
    d.connect(w);
    d.offer(batch('new'));
    expect(w.items.map((i) => i.instanceId), 'offered with a worker connected: sent at once').to.deep.equal(['new']);
    await rebuild('old');
    expect(w.items.map((i) => i.instanceId)).to.deep.equal(['new', 'old']);
    expect(wakes).to.have.length(1);
  });

  it('withdraws dormant batches (terminate, partitions gone) and wakes their leases', () => {
    const { d, wakes, leasesWoken } = setUp();
    for (const id of ['t', 'moved-1', 'moved-2', 'kept']) d.offer(batch(id));
    expect(d.withdrawQueuedOrchestration('t')).to.equal(true);
    d.withdrawQueued((id) => id.startsWith('moved'));
    expect(leasesWoken).to.deep.equal(['t', 'moved-1', 'moved-2']);
    expect(['t', 'moved-1', 'moved-2', 'kept'].map((id) => d.hasOrchestration(id))).to.deep.equal([false, false, false, true]);
    d.connect(worker(1));
    expect(wakes.map((w) => w.instanceId)).to.deep.equal(['kept']);
  });

  it('keeps a batch whose wake failed dormant, at the back, and pauses the wakes a second before the next', async () => {
    const { d, wakes, leasesWoken } = setUp(1);
    d.offer(batch('a'));
    d.offer(batch('b'));
    d.connect(worker(1));
    wakes[0]!.settle(false);
    await new Promise((r) => setImmediate(r));
    expect(d.hasOrchestration('a'), 'still held: its lease stays parked').to.equal(true);
    expect(leasesWoken).to.deep.equal([]);
    d.connect(worker(2)); // more room, and a pump: still paused
    expect(wakes.map((x) => x.instanceId), 'paused').to.deep.equal(['a']);
    await new Promise((r) => setTimeout(r, 1_100));
    expect(wakes.map((x) => x.instanceId), 'after the pause the oldest left goes first; the failed one is back at the end').to.deep.equal(['a', 'b', 'a']);
    d.closeAll();
  });
});
