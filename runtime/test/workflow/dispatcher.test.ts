import { expect } from 'chai';
import { WorkDispatcher, type ActivityItem, type OrchestrationItem, type WorkItem, type WorkerConnection } from '../../src/workflow/dispatcher.js';

class FakeWorker implements WorkerConnection {
  static next = 1;
  readonly id = FakeWorker.next++;
  constructor(readonly remote?: true) {}
  readonly received: WorkItem[] = [];
  closed = false;
  alive = true;
  send(item: WorkItem): boolean {
    if (!this.alive) return false;
    this.received.push(item);
    return true;
  }
  close(): void {
    this.closed = true;
  }
}

const orch = (instanceId: string): OrchestrationItem => ({ kind: 'orchestration', instanceId, generation: 1, historyLength: 0, pastEvents: [], newEvents: [], seqs: [0] });
const act = (instanceId: string, taskId: number): ActivityItem => ({ kind: 'activity', instanceId, generation: 1, taskId, name: 'a' });

describe('workflow WorkDispatcher', () => {
  it('queues work while no worker is connected and delivers it when one connects', () => {
    const d = new WorkDispatcher();
    d.offer(orch('a'));
    d.offer(act('a', 1));
    const w = new FakeWorker();
    d.connect(w);
    expect(w.received.map((i) => i.kind)).to.deep.equal(['orchestration', 'activity']);
  });

  it('holds at most one orchestration item per instance', () => {
    const d = new WorkDispatcher();
    expect(d.offer(orch('a'))).to.equal(true);
    expect(d.offer(orch('a'))).to.equal(false);
    expect(d.hasOrchestration('a')).to.equal(true);
  });

  it('shares work between connected workers round robin', () => {
    const d = new WorkDispatcher();
    const w1 = new FakeWorker();
    const w2 = new FakeWorker();
    d.connect(w1);
    d.connect(w2);
    for (const id of ['a', 'b', 'c', 'd']) d.offer(orch(id));
    expect(w1.received.map((i) => i.instanceId)).to.deep.equal(['a', 'c']);
    expect(w2.received.map((i) => i.instanceId)).to.deep.equal(['b', 'd']);
  });

  it('hands the items of a disconnected worker out again, first', () => {
    const d = new WorkDispatcher();
    const w1 = new FakeWorker();
    d.connect(w1);
    d.offer(orch('a'));
    d.offer(act('a', 1));
    d.disconnect(w1);
    d.offer(orch('b'));
    const w2 = new FakeWorker();
    d.connect(w2);
    expect(w2.received.map((i) => `${i.kind}:${i.instanceId}`)).to.deep.equal(['orchestration:a', 'activity:a', 'orchestration:b']);
  });

  it('a claimed answer is not handed out again on disconnect and blocks a second item until released', () => {
    const d = new WorkDispatcher();
    const w1 = new FakeWorker();
    d.connect(w1);
    d.offer(orch('a'));
    const item = d.claimOrchestration('a');
    expect(item?.instanceId).to.equal('a');
    expect(d.claimOrchestration('a')).to.equal(undefined); // a duplicate answer
    d.disconnect(w1);
    const w2 = new FakeWorker();
    d.connect(w2);
    expect(w2.received).to.deep.equal([]);
    expect(d.offer(orch('a'))).to.equal(false);
    d.release(item!);
    expect(d.offer(orch('a'))).to.equal(true);
    expect(w2.received).to.have.length(1);
  });

  it('an answer for an unknown item is refused', () => {
    const d = new WorkDispatcher();
    expect(d.claimActivity('x', 1)).to.equal(undefined);
    d.offer(act('x', 1)); // queued, never sent: nobody can have answered it
    expect(d.claimActivity('x', 1)).to.equal(undefined);
  });

  it('never gives a worker more than its limit of unanswered items', () => {
    const d = new WorkDispatcher(2);
    const w = new FakeWorker();
    d.connect(w);
    for (let t = 1; t <= 4; t++) d.offer(act('i', t));
    expect(w.received).to.have.length(2);
    const first = d.claimActivity('i', 1)!;
    d.release(first);
    expect(w.received).to.have.length(3);
  });

  it('withdraws a queued orchestration item (terminate without a worker) but not one a worker holds', () => {
    const d = new WorkDispatcher();
    d.offer(orch('a'));
    expect(d.withdrawQueuedOrchestration('a')).to.equal(true);
    expect(d.hasOrchestration('a')).to.equal(false);
    const w = new FakeWorker();
    d.connect(w);
    d.offer(orch('b'));
    expect(d.withdrawQueuedOrchestration('b')).to.equal(false);
  });

  it('closeAll ends every worker connection', () => {
    const d = new WorkDispatcher();
    const w1 = new FakeWorker();
    const w2 = new FakeWorker();
    d.connect(w1);
    d.connect(w2);
    d.closeAll();
    expect([w1.closed, w2.closed]).to.deep.equal([true, true]);
    expect(d.workerCount).to.equal(0);
  });

  describe('several replicas', () => {
    it('hands work to another replica only while no local worker is connected', () => {
      const d = new WorkDispatcher();
      const peer = new FakeWorker(true);
      d.connect(peer);
      expect(d.workerCount).to.equal(0);
      d.offer(orch('a'));
      expect(peer.received.map((i) => i.instanceId)).to.deep.equal(['a']);
      const local = new FakeWorker();
      d.connect(local);
      d.offer(orch('b'));
      d.offer(act('b', 1));
      expect(local.received.map((i) => i.instanceId)).to.deep.equal(['b', 'b']);
      expect(peer.received).to.have.length(1);
    });

    it('gives items handed over by the owner to local workers only, never to another replica', () => {
      const d = new WorkDispatcher();
      const peer = new FakeWorker(true);
      d.connect(peer);
      expect(d.offerForwarded(orch('x'))).to.equal(true);
      expect(peer.received).to.have.length(0);
      const local = new FakeWorker();
      d.connect(local);
      expect(local.received.map((i) => i.instanceId)).to.deep.equal(['x']);
      // Its worker leaves: the item waits for the next local worker, still not for the peer.
      d.disconnect(local);
      expect(peer.received).to.have.length(0);
      const again = new FakeWorker();
      d.connect(again);
      expect(again.received.map((i) => i.instanceId)).to.deep.equal(['x']);
    });

    it("takes the owner's next batch while the answer to the previous one is still being recorded here", () => {
      const d = new WorkDispatcher();
      const local = new FakeWorker();
      d.connect(local);
      const first = orch('a');
      d.offerForwarded(first);
      expect(d.claimOrchestration('a')).to.equal(first); // the worker answered; the answer goes to the owner
      const next = { ...orch('a'), historyLength: 5 };
      expect(d.offerForwarded(next)).to.equal(true); // the owner recorded it and sent the next batch at once
      d.release(first); // the late release of the first copy leaves the new one alone
      expect(local.received).to.deep.equal([first, next]);
      // A batch still with a worker is not replaced (its answer would be matched to the wrong batch).
      expect(d.offerForwarded({ ...orch('a'), historyLength: 9 })).to.equal(false);
      expect(d.offerForwarded(act('a', 1))).to.equal(true);
      expect(d.offerForwarded(act('a', 1))).to.equal(true);
      expect(local.received.filter((i) => i.kind === 'activity')).to.have.length(1);
    });

    it('releases the copy another replica delivered once the owner records its answer', () => {
      const d = new WorkDispatcher();
      const peer = new FakeWorker(true);
      d.connect(peer);
      d.offer(orch('a'));
      d.offer(act('a', 7));
      expect(d.hasOrchestration('a')).to.equal(true);
      d.releaseAnsweredOrchestration('a');
      d.releaseAnsweredActivity('a', 7);
      expect(d.hasOrchestration('a')).to.equal(false);
      expect(d.hasActivity('a', 7)).to.equal(false);
    });

    it('puts back what a replica held when it goes away, for the next worker', () => {
      const d = new WorkDispatcher();
      const peer = new FakeWorker(true);
      d.connect(peer);
      d.offer(orch('a'));
      d.disconnect(peer);
      const local = new FakeWorker();
      d.connect(local);
      expect(local.received.map((i) => i.instanceId)).to.deep.equal(['a']);
    });

    it('withdraws queued items of instances that left this replica, not items with a worker', () => {
      const d = new WorkDispatcher();
      d.offer(orch('gone'));
      d.offer(orch('kept'));
      d.withdrawQueued((id) => id === 'gone');
      expect(d.hasOrchestration('gone')).to.equal(false);
      expect(d.hasOrchestration('kept')).to.equal(true);
      const w = new FakeWorker();
      d.connect(w);
      d.withdrawQueued(() => true);
      expect(d.hasOrchestration('kept')).to.equal(true);
    });
  });
});
