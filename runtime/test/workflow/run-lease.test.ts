/**
 * An instance waiting for a worker, on the real engine and actor runtime with a fake clock: its `run` lease parked
 * while the dispatcher holds the instance's batch, watching again once the batch leaves, and offering it again
 * when recording a worker's answer failed (the one case the lease exists for while svcd runs); its activation
 * not kept, and its batch held by its id alone (dormant), while no worker is connected; dormant batches built
 * again as workers have room for them, and after a pause when that failed.
 */
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { FakeClock } from '../../src/actors/clock.js';
import type { ReplicaSet } from '../../src/actors/placement/replica-set.js';
import { LocalActorRuntime } from '../../src/actors/runtime.js';
import type { TransactionOperation } from '../../src/components/contracts/state-store.js';
import { createLogger } from '../../src/log/logger.js';
import { InMemoryStateStore } from '../../src/state/in-memory.js';
import { ActorWorkflowEngine } from '../../src/workflow/actor-engine.js';
import { WorkflowMetrics } from '../../src/workflow/metrics.js';
import type { WorkItem, WorkerConnection } from '../../src/workflow/work-items.js';

const log = createLogger({ level: 'error', json: true });

/** The in-memory store with reads and commits that can be made to fail, counting reads (a turn reads, a parked lease does not). */
class FlakyStore extends InMemoryStateStore {
  failCommits = false;
  failReads = false;
  reads = 0;

  override get(req: Parameters<InMemoryStateStore['get']>[0]) {
    this.reads++;
    return this.failReads ? Promise.reject(new Error('injected read failure')) : super.get(req);
  }

  override bulkGet(reqs: Parameters<InMemoryStateStore['bulkGet']>[0]) {
    this.reads += reqs.length;
    return this.failReads ? Promise.reject(new Error('injected read failure')) : super.bulkGet(reqs);
  }

  override transact(ops: readonly TransactionOperation[]): Promise<void> {
    if (this.failCommits) return Promise.reject(new Error('injected commit failure'));
    return super.transact(ops);
  }
}

/** One replica owning everything, with no peers. */
const alone: ReplicaSet = {
  router: undefined as never,
  peers: undefined as never,
  ownsHere: () => true,
  peersWithWorkers: () => [],
  onPartitionsLeft: () => undefined,
  changed: (_timeoutMs, signal) => new Promise((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true })),
  workersChanged: () => undefined,
};

class Worker implements WorkerConnection {
  readonly id = 1;
  readonly received: { item: WorkItem; token: string }[] = [];
  send(item: WorkItem, token: string): boolean {
    this.received.push({ item, token });
    return true;
  }
  close(): void {}
}

const tokenOf = (worker: Worker, instanceId: string) => worker.received.find((r) => r.item.instanceId === instanceId)!.token;
const complete = (result: string) => [{ id: 0, type: 'CompleteOrchestration' as const, status: 'COMPLETED' as const, result, carryoverEvents: [] }];

describe('workflow instances waiting for a worker (fake clock)', () => {
  const clock = new FakeClock();
  let store: FlakyStore;
  let runtime: LocalActorRuntime;
  let engine: ActorWorkflowEngine;

  beforeEach(async () => {
    store = new FlakyStore();
    runtime = new LocalActorRuntime({ appId: 'app', store, log, metrics: new Registry(), clock });
    engine = new ActorWorkflowEngine({ runtime, appId: 'app', metrics: new WorkflowMetrics(new Registry()), log, replicas: alone, taskTimeoutMs: 0 });
    await runtime.start();
  });

  afterEach(async () => {
    engine.closeWorkers();
    await runtime.stop();
  });

  it('keep no activation and only their id while no worker is connected; a worker coming builds the batch again', async () => {
    await engine.start({ name: 'wf', instanceId: 'early', input: '"in"' });
    await clock.advance(0);
    expect(runtime.activeCount(engine.actorType), 'no worker: the activation ended with its turn').to.equal(0);
    const reads = store.reads;
    const worker = new Worker();
    engine.connect(worker);
    await clock.advance(0);
    expect(store.reads - reads, 'the batch was built again from the store').to.be.greaterThan(0);
    expect(worker.received).to.have.length(1);
    const batch = worker.received[0]!.item;
    expect(batch.kind === 'orchestration' && batch.newEvents.map((e) => e.type)).to.deep.equal(['OrchestratorStarted', 'ExecutionStarted']);
    expect(batch.kind === 'orchestration' && batch.newEvents[1]).to.include({ name: 'wf', input: '"in"' });
    await engine.start({ name: 'wf', instanceId: 'served' });
    await clock.advance(0);
    expect(runtime.activeCount(engine.actorType), 'with a worker both stay active').to.equal(2);
    await engine.completeOrchestration('early', complete('"early"'), undefined, { token: tokenOf(worker, 'early') });
    expect(await engine.get('early')).to.include({ runtimeStatus: 'COMPLETED', output: '"early"' });
  });

  it('build dormant batches again oldest first, only as many as the workers have room for', async () => {
    const ids = Array.from({ length: 130 }, (_, i) => `w${String(i).padStart(3, '0')}`);
    for (const instanceId of ids) await engine.start({ name: 'wf', instanceId });
    await clock.advance(0);
    const worker = new Worker();
    engine.connect(worker);
    await clock.advance(0);
    expect(worker.received.map((r) => r.item.instanceId), 'a worker takes 100 unanswered items').to.deep.equal(ids.slice(0, 100));
    expect(runtime.activeCount(engine.actorType), 'only those were loaded').to.equal(100);
    for (const instanceId of ids.slice(0, 5)) await engine.completeOrchestration(instanceId, complete('"ok"'), undefined, { token: tokenOf(worker, instanceId) });
    await clock.advance(0);
    expect(worker.received.map((r) => r.item.instanceId).slice(100), 'each answer makes room for the next').to.deep.equal(ids.slice(100, 105));
  });

  it('withdraw a dormant batch when its instance is terminated', async () => {
    await engine.start({ name: 'wf', instanceId: 'gone' });
    await clock.advance(0);
    await engine.terminate('gone');
    await clock.advance(0);
    expect((await engine.get('gone'))?.runtimeStatus).to.equal('TERMINATED');
    const worker = new Worker();
    engine.connect(worker);
    await clock.advance(0);
    expect(worker.received, 'nothing left to run').to.have.length(0);
  });

  it('try a dormant batch that could not be built again after a pause, its lease still parked', async () => {
    await engine.start({ name: 'wf', instanceId: 'later' });
    await clock.advance(6_000); // the lease's first fire finds the batch dormant: parked
    const worker = new Worker();
    store.failReads = true;
    engine.connect(worker);
    await clock.advance(0);
    store.failReads = false;
    expect(worker.received, 'the store could not be read').to.have.length(0);
    const reads = store.reads;
    await clock.advance(60_000);
    expect(store.reads - reads, 'no lease fire meanwhile').to.equal(0);
    await new Promise((r) => setTimeout(r, 1_100)); // the pause runs on real time
    await clock.advance(0);
    expect(worker.received.map((r) => r.item.instanceId), 'built again after the pause').to.deep.equal(['later']);
  });

  it('park their run lease while the batch waits, and offer the batch again after recording its answer failed', async () => {
    await engine.start({ name: 'wf', instanceId: 'i1' });
    await clock.advance(0);
    const readsWhileWaiting = store.reads;
    // The lease's first fire (5 s) finds the batch held for a worker: parked; then ten periods pass without a turn.
    for (let i = 0; i < 11; i++) await clock.advance(30_000);
    expect(store.reads - readsWhileWaiting, 'no turn loaded the instance while it waited').to.equal(0);

    const worker = new Worker();
    engine.connect(worker);
    await clock.advance(0);
    expect(worker.received.map((r) => r.item.kind)).to.deep.equal(['orchestration']);
    store.failCommits = true;
    await engine.completeOrchestration('i1', complete('"done"'), undefined, { token: worker.received[0]!.token });
    store.failCommits = false;
    expect((await engine.get('i1'))?.runtimeStatus, 'nothing was recorded').to.equal('PENDING');
    expect(worker.received, 'not offered again by itself').to.have.length(1);
    // The batch left the dispatcher: the lease watches again and offers it within one period.
    await clock.advance(30_000);
    expect(worker.received.map((r) => r.item.kind), 'offered again by the lease').to.deep.equal(['orchestration', 'orchestration']);
    await engine.completeOrchestration('i1', complete('"done"'), undefined, { token: worker.received[1]!.token });
    const done = await engine.get('i1');
    expect(done?.runtimeStatus).to.equal('COMPLETED');
    expect(done?.output).to.equal('"done"');
  });
});
