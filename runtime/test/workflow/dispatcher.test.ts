import { expect } from 'chai';
import { WorkDispatcher } from '../../src/workflow/dispatcher.js';
import type { ActivityItem, Claim, OrchestrationItem, WorkItem, WorkerConnection } from '../../src/workflow/work-items.js';

class FakeWorker implements WorkerConnection {
  static next = 1;
  readonly id = FakeWorker.next++;
  constructor(
    readonly remote?: true,
    readonly peer?: string,
  ) {}
  readonly received: WorkItem[] = [];
  readonly tokens: string[] = [];
  closed = false;
  alive = true;
  send(item: WorkItem, token: string): boolean {
    if (!this.alive) return false;
    this.received.push(item);
    this.tokens.push(token);
    return true;
  }
  close(): void {
    this.closed = true;
  }
}

const orch = (instanceId: string, name = 'wf'): OrchestrationItem => ({ kind: 'orchestration', instanceId, name, generation: 1, historyLength: 0, pastEvents: [], newEvents: [], seqs: [0] });
const act = (instanceId: string, taskId: number, name = 'a'): ActivityItem => ({ kind: 'activity', instanceId, generation: 1, taskId, name });
/** The claimed item; undefined for a stale answer. */
const claimed = <T extends WorkItem>(c: Claim<T>): T | undefined => ('item' in c ? c.item : undefined);

describe('workflow WorkDispatcher', () => {
  it('queues work while no worker is connected and delivers it when one connects', () => {
    const d = new WorkDispatcher();
    d.offer(orch('a'));
    d.offer(act('a', 1));
    const w = new FakeWorker();
    d.connect(w);
    expect(w.received.map((i) => i.kind)).to.deep.equal(['orchestration', 'activity']);
  });

  it('tells which worker an activity or a batch is out with: none while queued or answered, the holder meanwhile, the next after a disconnect', () => {
    const d = new WorkDispatcher();
    d.offer(act('a', 1));
    d.offer(orch('b'));
    expect(d.activityWorker('a', 1), 'queued').to.equal(undefined);
    expect(d.orchestrationWorker('b'), 'queued').to.equal(undefined);
    const w1 = new FakeWorker(undefined, 'ipv4:127.0.0.1:1');
    const w2 = new FakeWorker(undefined, 'ipv4:127.0.0.1:2');
    d.connect(w1);
    expect(d.activityWorker('a', 1)).to.equal(w1);
    expect(d.orchestrationWorker('b')).to.equal(w1);
    d.connect(w2);
    d.disconnect(w1);
    expect(d.activityWorker('a', 1)).to.equal(w2);
    expect(d.localWorkers).to.deep.equal([w2]);
    const item = claimed(d.claimActivity('a', 1, { token: w2.tokens[0]! }));
    expect(d.activityWorker('a', 1), 'its answer is being recorded').to.equal(undefined);
    d.release(item!);
    expect(d.activityWorker('a', 2), 'unknown here').to.equal(undefined);
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
    const item = claimed(d.claimOrchestration('a'));
    expect(item?.instanceId).to.equal('a');
    expect(claimed(d.claimOrchestration('a'))).to.equal(undefined); // a duplicate answer
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
    expect(claimed(d.claimActivity('x', 1))).to.equal(undefined);
    d.offer(act('x', 1)); // queued, never sent: nobody can have answered it
    expect(claimed(d.claimActivity('x', 1))).to.equal(undefined);
  });

  describe('stale answers', () => {
    it('every hand-out gets its own token: an answer echoing the token of an earlier hand-out is stale', () => {
      const d = new WorkDispatcher();
      const w1 = new FakeWorker();
      d.connect(w1);
      d.offer(orch('a'));
      const firstToken = w1.tokens[0]!;
      d.disconnect(w1); // its stream dropped: the batch goes to the next worker with a new token
      const w2 = new FakeWorker();
      d.connect(w2);
      const secondToken = w2.tokens[0]!;
      expect(secondToken).to.not.equal(firstToken);
      expect(d.claimOrchestration('a', { token: firstToken })).to.deep.equal({ stale: 'token' });
      expect(claimed(d.claimOrchestration('a', { token: secondToken }))?.instanceId).to.equal('a');
      expect(d.claimOrchestration('a', { token: secondToken })).to.deep.equal({ stale: 'claimed' });
    });

    it('without a token, only the client the item was sent to may answer it', () => {
      const d = new WorkDispatcher();
      const w = new FakeWorker(undefined, 'ipv4:127.0.0.1:5001');
      d.connect(w);
      d.offer(act('a', 1));
      expect(d.claimActivity('a', 1, { token: '', peer: 'ipv4:127.0.0.1:5002' })).to.deep.equal({ stale: 'connection' });
      expect(claimed(d.claimActivity('a', 1, { token: '', peer: 'ipv4:127.0.0.1:5001' }))?.taskId).to.equal(1);
    });
  });

  describe('work only for workers that can run it', () => {
    it('a worker that answered "not registered" is not offered that name again; the item goes to another worker', () => {
      const d = new WorkDispatcher();
      const w1 = new FakeWorker();
      const w2 = new FakeWorker();
      d.connect(w1);
      d.connect(w2);
      d.offer(act('i', 1, 'resize'));
      expect(w1.received).to.have.length(1);
      const c = d.claimActivity('i', 1);
      if (!('item' in c)) throw new Error('expected a claim');
      expect(d.refused(c.item, c.worker)).to.equal(true);
      expect(w2.received.map((x) => x.kind === 'activity' && x.name)).to.deep.equal(['resize']);
      // From now on w1 gets no 'resize' work, but still everything else.
      d.offer(act('i', 2, 'resize'));
      d.offer(act('i', 3, 'other'));
      expect(w1.received.map((x) => x.kind === 'activity' && x.name)).to.deep.equal(['resize', 'other']);
      expect(w2.received.map((x) => x.kind === 'activity' && x.name)).to.deep.equal(['resize', 'resize']);
    });

    it('when every connected worker refused an item, the refusal stands (the caller records it)', () => {
      const d = new WorkDispatcher();
      const w = new FakeWorker();
      d.connect(w);
      d.offer(orch('a', 'unknown-workflow'));
      const c = d.claimOrchestration('a');
      if (!('item' in c)) throw new Error('expected a claim');
      expect(d.refused(c.item, c.worker)).to.equal(false);
      d.release(c.item);
      expect(d.hasOrchestration('a')).to.equal(false);
    });

    it('an item no worker with room can run waits without holding up the items behind it', () => {
      const d = new WorkDispatcher();
      const w = new FakeWorker();
      d.connect(w);
      d.offer(act('i', 1, 'x'));
      const c = d.claimActivity('i', 1);
      if (!('item' in c)) throw new Error('expected a claim');
      d.refused(c.item, c.worker); // w lacks 'x'; no other worker: the refusal stands
      d.release(c.item);
      d.offer(act('i', 2, 'x'));
      d.offer(act('i', 3, 'y'));
      expect(w.received.map((x) => x.kind === 'activity' && x.taskId)).to.deep.equal([1, 3]);
      const other = new FakeWorker();
      d.connect(other);
      expect(other.received.map((x) => x.kind === 'activity' && x.taskId)).to.deep.equal([2]);
    });
  });

  it('keeps the order of a 100,000-item queue and leaves out what was withdrawn while queued', () => {
    const d = new WorkDispatcher({ maxPerWorker: 1_000_000 });
    for (let t = 0; t < 100_000; t++) d.offer(act('big', t));
    for (let t = 0; t < 100_000; t += 2) d.dropActivity('big', t); // still queued: no worker yet
    d.offer(act('big', 0)); // offered again after its withdrawal: queued anew, at the end
    const w = new FakeWorker();
    d.connect(w);
    const ids = w.received.map((x) => (x.kind === 'activity' ? x.taskId : -1));
    expect(ids).to.have.length(50_001);
    expect(ids.slice(0, 3)).to.deep.equal([1, 3, 5]);
    expect(ids.at(-2)).to.equal(99_999);
    expect(ids.at(-1)).to.equal(0);
  });

  it('never gives a worker more than its limit of unanswered items', () => {
    const d = new WorkDispatcher({ maxPerWorker: 2 });
    const w = new FakeWorker();
    d.connect(w);
    for (let t = 1; t <= 4; t++) d.offer(act('i', t));
    expect(w.received).to.have.length(2);
    const first = claimed(d.claimActivity('i', 1))!;
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

  it('tells when an orchestration item leaves (answered, let go, withdrawn), whatever the path, and only then', () => {
    const left: string[] = [];
    const d = new WorkDispatcher({}, { orchestrationLeft: (id) => left.push(id) });
    const w = new FakeWorker();
    d.offer(orch('queued'));
    d.offer(orch('answered'));
    d.offer(orch('failed'));
    d.offer(act('answered', 1));
    d.connect(w);
    d.disconnect(w); // handed back: still here
    d.connect(w);
    expect(left, 'nothing left yet').to.deep.equal([]);
    claimed(d.claimOrchestration('answered'));
    d.releaseAnsweredOrchestration('answered'); // the owner records the answer
    const failed = claimed(d.claimOrchestration('failed'));
    d.release(failed!); // recording failed: let go
    d.release(claimed(d.claimActivity('answered', 1))!); // an activity: not reported
    d.withdrawQueued(() => true); // with a worker: stays
    expect(left).to.deep.equal(['answered', 'failed']);
    d.disconnect(w);
    d.withdrawQueuedOrchestration('queued');
    expect(left).to.deep.equal(['answered', 'failed', 'queued']);
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
      expect(claimed(d.claimOrchestration('a'))).to.equal(first); // the worker answered; the answer goes to the owner
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

  describe('unresponsive workers', () => {
    const TIMEOUT_MS = 40;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    /** A dispatcher with a short task timeout, the reasons it reported, a hung worker and a live one (each its own client). */
    function setUp() {
      const reports: { worker: number; reason: string; reoffered: string[] }[] = [];
      const d = new WorkDispatcher(
        { taskTimeoutMs: TIMEOUT_MS },
        { workerUnresponsive: (w, reason, items) => reports.push({ worker: w.id, reason, reoffered: items.map((i) => `${i.kind}:${i.instanceId}`) }) },
      );
      const hung = new FakeWorker(undefined, 'ipv4:127.0.0.1:1001');
      const live = new FakeWorker(undefined, 'ipv4:127.0.0.1:1002');
      d.connect(hung);
      d.connect(live);
      return { d, reports, hung, live };
    }

    it('hands an orchestration batch left unanswered past the task timeout, and all that worker holds, to another worker', async () => {
      const { d, reports, hung, live } = setUp();
      d.offer(act('x', 1)); // → hung
      d.offer(act('x', 2)); // → live
      d.offer(orch('a')); // → hung
      expect(hung.received.map((i) => i.instanceId)).to.deep.equal(['x', 'a']);
      const answered = claimed(d.claimActivity('x', 2, { token: live.tokens[0] as string, peer: live.peer }));
      if (answered) d.release(answered);
      // Past the hung worker's deadline, before the live one's (set when it got the batch).
      await sleep(TIMEOUT_MS * 1.5);
      expect(reports).to.deep.equal([{ worker: hung.id, reason: 'task_timeout', reoffered: ['activity:x', 'orchestration:a'] }]);
      expect(live.received.map((i) => `${i.kind}:${i.instanceId}`)).to.deep.equal(['activity:x', 'activity:x', 'orchestration:a']);
      // Offered nothing more while it stays silent.
      d.offer(orch('b'));
      d.offer(orch('c'));
      expect(hung.received).to.have.length(2);
      expect(live.received.map((i) => i.instanceId).slice(3)).to.deep.equal(['b', 'c']);
    });

    it('treats the first worker\'s late answer as stale, and offers it work again once it answers', async () => {
      const { d, hung, live } = setUp();
      d.offer(orch('a'));
      const lateToken = hung.tokens[0] as string;
      await sleep(TIMEOUT_MS * 1.5);
      expect(live.received.map((i) => i.instanceId)).to.deep.equal(['a']);
      expect(d.claimOrchestration('a', { token: lateToken, peer: hung.peer })).to.deep.equal({ stale: 'token' });
      // Without a token, an answer from the first worker's client is not taken for the live worker's either.
      expect(d.claimOrchestration('a', { peer: hung.peer })).to.deep.equal({ stale: 'connection' });
      const current = claimed(d.claimOrchestration('a', { token: live.tokens[0] as string, peer: live.peer }));
      expect(current?.instanceId).to.equal('a');
      d.offer(orch('b'));
      d.offer(orch('c'));
      expect(hung.received.map((i) => i.instanceId).slice(1)).to.have.length(1); // round robin again: one of b, c
    });

    it('finds a worker whose stream stays blocked by flow control unresponsive, not one that drains in time', async () => {
      const { d, reports, hung, live } = setUp();
      d.offer(act('x', 1)); // → hung
      d.offer(act('y', 1)); // → live
      d.writeBlocked(live);
      d.writeDrained(live);
      d.writeBlocked(hung);
      await sleep(TIMEOUT_MS * 3);
      expect(reports).to.deep.equal([{ worker: hung.id, reason: 'stream_blocked', reoffered: ['activity:x'] }]);
      expect(live.received.map((i) => i.instanceId)).to.deep.equal(['y', 'x']);
    });

    it('leaves an unanswered activity with its worker (activities may run for hours)', async () => {
      const { d, reports, hung } = setUp();
      d.offer(act('x', 1));
      await sleep(TIMEOUT_MS * 3);
      expect(reports).to.deep.equal([]);
      expect(claimed(d.claimActivity('x', 1, { token: hung.tokens[0] as string, peer: hung.peer }))?.taskId).to.equal(1);
    });

    it('times nothing with a task timeout of 0, nor batches another replica runs, and no batch answered in time', async () => {
      const reports: string[] = [];
      const off = new WorkDispatcher({ taskTimeoutMs: 0 }, { workerUnresponsive: (w) => reports.push(`off:${w.id}`) });
      const w = new FakeWorker();
      off.connect(w);
      off.offer(orch('a'));
      off.writeBlocked(w);
      const timed = new WorkDispatcher({ taskTimeoutMs: TIMEOUT_MS }, { workerUnresponsive: (w) => reports.push(`remote:${w.id}`) });
      timed.connect(new FakeWorker(true));
      timed.offer(orch('r'));
      const answers = new FakeWorker();
      const inTime = new WorkDispatcher({ taskTimeoutMs: TIMEOUT_MS }, { workerUnresponsive: (w) => reports.push(`answered:${w.id}`) });
      inTime.connect(answers);
      inTime.offer(orch('q'));
      const item = claimed(inTime.claimOrchestration('q', { token: answers.tokens[0] as string }));
      if (item) inTime.release(item);
      await sleep(TIMEOUT_MS * 3);
      expect(reports).to.deep.equal([]);
    });
  });
});
