/**
 * An instance waiting for a worker, on the real engine and actor runtime with a fake clock: its `run` lease parked
 * while the dispatcher holds the instance's batch, watching again once the batch leaves, and offering it again
 * when recording a worker's answer failed (the one case the lease exists for while svcd runs); its activation
 * not kept while no worker is connected.
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

/** The in-memory store with commits that can be made to fail, counting reads (a turn reads, a parked lease does not). */
class FlakyStore extends InMemoryStateStore {
  failCommits = false;
  reads = 0;

  override get(req: Parameters<InMemoryStateStore['get']>[0]) {
    this.reads++;
    return super.get(req);
  }

  override bulkGet(reqs: Parameters<InMemoryStateStore['bulkGet']>[0]) {
    this.reads += reqs.length;
    return super.bulkGet(reqs);
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

  it('keep no activation while no worker is connected; the answer loads the instance again', async () => {
    await engine.start({ name: 'wf', instanceId: 'early' });
    await clock.advance(0);
    expect(runtime.activeCount(engine.actorType), 'no worker: the activation ended with its turn').to.equal(0);
    const worker = new Worker();
    engine.connect(worker);
    await engine.start({ name: 'wf', instanceId: 'served' });
    await clock.advance(0);
    expect(runtime.activeCount(engine.actorType), 'with a worker the new instance stays active').to.equal(1);
    const reads = store.reads;
    await engine.completeOrchestration('early', complete('"early"'), undefined, { token: worker.received[0]!.token });
    expect(store.reads - reads, 'loaded again for the answer').to.be.greaterThan(0);
    expect(await engine.get('early')).to.include({ runtimeStatus: 'COMPLETED', output: '"early"' });
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
