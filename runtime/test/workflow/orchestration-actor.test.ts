/**
 * The orchestration actor's persistence, turn by turn, against a recording actor context: each turn writes only
 * its new history events, its inbox changes, the metadata and its reminders — never the earlier history.
 */
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { FakeClock } from '../../src/actors/clock.js';
import type { ActorContext, ActorRuntime, ReminderInfo, ReminderOptions } from '../../src/actors/types.js';
import { createLogger } from '../../src/log/logger.js';
import { WorkDispatcher } from '../../src/workflow/dispatcher.js';
import type { WorkItem, WorkerConnection } from '../../src/workflow/work-items.js';
import type { HistoryEvent } from '../../src/workflow/history.js';
import { WorkflowMetrics } from '../../src/workflow/metrics.js';
import { OrchestrationActor, type OrchestrationDeps } from '../../src/workflow/orchestration-actor.js';
import { decodeHistoryRange, encodeCompletion, type CompletionPayload } from '../../src/workflow/orchestration-messages.js';
import type { HistoryRange } from '../../src/workflow/engine.js';

interface TurnRecord {
  /** One entry per `deactivateWhenIdle` call. */
  deactivate: true[];
  sets: string[];
  deletes: string[];
  remindersCreated: string[];
  remindersDeleted: string[];
}

/** Committed state and reminders of one actor; each `turn()` records what that turn wrote. */
class RecordingActor {
  readonly state = new Map<string, Buffer>();
  readonly reminders = new Map<string, ReminderOptions>();
  /** The actor's entries in its type's index. */
  readonly index = new Map<string, Buffer>();
  readonly clock = new FakeClock();
  /** Every state key read, in order, across turns. */
  readonly reads: string[] = [];

  turn(): { ctx: ActorContext; record: TurnRecord; commit: () => void } {
    const record: TurnRecord = { deactivate: [], sets: [], deletes: [], remindersCreated: [], remindersDeleted: [] };
    const writes = new Map<string, Buffer | undefined>();
    const reminderOps = new Map<string, ReminderOptions | undefined>();
    const afterCommit: (() => void)[] = [];
    const indexOps = new Map<string, Buffer | null>();
    const read = (k: string) => (this.reads.push(k), writes.has(k) ? writes.get(k) : this.state.get(k));
    const ctx: ActorContext = {
      type: 'wf',
      id: 'i1',
      clock: this.clock,
      state: {
        get: (k) => Promise.resolve(read(k)),
        getMany: (ks) => Promise.resolve(ks.map(read)),
        set: (k, v) => void (writes.set(k, v), record.sets.push(k)),
        delete: (k) => void (writes.set(k, undefined), record.deletes.push(k)),
      },
      createReminder: (name, opts) => void (reminderOps.set(name, opts), record.remindersCreated.push(name)),
      deleteReminder: (name) => void (reminderOps.set(name, undefined), record.remindersDeleted.push(name)),
      getReminder: (name) => {
        const has = reminderOps.has(name) ? reminderOps.get(name) !== undefined : this.reminders.has(name);
        return Promise.resolve(has ? ({ name } as ReminderInfo) : undefined);
      },
      createTimer: () => undefined,
      deleteTimer: () => undefined,
      deactivateWhenIdle: () => void record.deactivate.push(true),
      afterCommit: (fn) => void afterCommit.push(fn),
      setIndexEntry: (k, v) => void indexOps.set(k, v),
    };
    const commit = () => {
      for (const [k, v] of writes) (v === undefined ? this.state.delete(k) : this.state.set(k, v));
      for (const [k, v] of reminderOps) (v === undefined ? this.reminders.delete(k) : this.reminders.set(k, v));
      for (const [k, v] of indexOps) (v === null ? this.index.delete(k) : this.index.set(k, v));
      for (const fn of afterCommit) fn();
    };
    return { ctx, record, commit };
  }
}

class Worker implements WorkerConnection {
  readonly id = 1;
  readonly items: WorkItem[] = [];
  send(item: WorkItem): boolean {
    this.items.push(item);
    return true;
  }
  close(): void {}
}

const enc = (v: unknown) => Buffer.from(JSON.stringify(v));

describe('workflow OrchestrationActor persistence (append-only, one transaction per turn)', () => {
  const dispatcher = new WorkDispatcher();
  const worker = new Worker();
  dispatcher.connect(worker);
  const deps: OrchestrationDeps = {
    actorType: 'wf',
    runtime: {} as ActorRuntime, // no messages to other instances in this test
    dispatcher,
    metrics: new WorkflowMetrics(new Registry()),
    log: createLogger({ level: 'error', json: true }),
    changed: () => void changes++,
  };
  let changes = 0;
  const store = new RecordingActor();
  const actor = new OrchestrationActor('i1', deps);

  async function run(method: string, payload: unknown): Promise<TurnRecord> {
    const { ctx, record, commit } = store.turn();
    await actor.invoke(method, method === 'complete' ? await encodeCompletion(payload as CompletionPayload) : enc(payload), ctx);
    commit();
    return record;
  }

  async function historyRange(from: number, size: number): Promise<{ record: TurnRecord; range: HistoryRange | undefined }> {
    const { ctx, record } = store.turn();
    return { record, range: await decodeHistoryRange(await actor.invoke('historyRange', enc({ from, size }), ctx)) };
  }

  async function answer(actions: CompletionPayload['actions']): Promise<TurnRecord> {
    const claim = dispatcher.claimOrchestration('i1');
    if (!('item' in claim)) throw new Error('no orchestration item was handed out');
    const { item } = claim;
    const payload: CompletionPayload = {
      plan: { generation: item.generation, historyLength: item.historyLength, seqs: item.seqs, orchestratorStarted: item.newEvents[0] as HistoryEvent },
      actions,
      customStatus: '',
    };
    return run('complete', payload);
  }

  it('create: the ExecutionStarted goes to the inbox with the metadata; the run lease is set; a batch goes out', async () => {
    const rec = await run('create', { name: 'wf', instanceId: 'i1', input: '"x"' });
    expect(rec.sets.sort()).to.deep.equal(['inbox-0', 'metadata']);
    expect(rec.remindersCreated).to.deep.equal(['run']);
    expect(worker.items.map((i) => i.kind)).to.deep.equal(['orchestration']);
    const meta = JSON.parse(store.state.get('metadata')!.toString()) as { createdAt: number };
    expect(JSON.parse(store.index.get('i1')!.toString())).to.deep.equal({ name: 'wf', status: 'PENDING', createdAt: meta.createdAt, lastUpdatedAt: meta.createdAt });
  });

  it('a lease fire while the batch is with a worker writes nothing, offers nothing again and wakes no waiter', async () => {
    expect(store.reminders.get('run')).to.include({ dueTimeMs: 5000, advanceInMemory: true });
    const before = changes;
    await store.clock.advance(5000);
    const { ctx, record, commit } = store.turn();
    await actor.onReminder('run', undefined, ctx, { actorType: 'wf', actorId: 'i1', name: 'run', dueAt: store.clock.now() });
    commit();
    expect(record).to.deep.equal({ deactivate: [], sets: [], deletes: [], remindersCreated: [], remindersDeleted: [] });
    expect(changes).to.equal(before);
    expect(worker.items).to.have.length(1);
  });

  it('first result: writes history 0..2, consumes the inbox; the activity goes out only once the turn committed', async () => {
    const claim = dispatcher.claimOrchestration('i1');
    if (!('item' in claim)) throw new Error('no orchestration item was handed out');
    const { item } = claim;
    const payload: CompletionPayload = {
      plan: { generation: item.generation, historyLength: item.historyLength, seqs: item.seqs, orchestratorStarted: item.newEvents[0] as HistoryEvent },
      actions: [{ id: 1, type: 'ScheduleTask', name: 'act', input: '1' }],
      customStatus: '',
    };
    const { ctx, record: rec, commit } = store.turn();
    await actor.invoke('complete', await encodeCompletion(payload), ctx);
    expect(worker.items.at(-1)?.kind, 'nothing handed out before the commit').to.equal('orchestration');
    commit();
    expect(rec.sets.sort()).to.deep.equal(['history-000000', 'history-000001', 'history-000002', 'metadata']);
    expect(rec.deletes).to.deep.equal(['inbox-0']);
    expect(rec.remindersCreated, 'no reminder per activity: the run lease covers open activities').to.deep.equal([]);
    expect(rec.remindersDeleted).to.deep.equal([]);
    expect(rec.deactivate, 'a running instance stays active').to.deep.equal([]);
    expect(worker.items.at(-1)).to.include({ kind: 'activity', taskId: 1, name: 'act', input: '1' });
  });

  it('a history range of an active instance comes from memory: no history key is read, the activation stays', async () => {
    store.reads.length = 0;
    const { record, range } = await historyRange(1, 500);
    expect(range).to.deep.include({ historyLength: 3 });
    expect(range?.events.map((e) => e.type)).to.deep.equal(['ExecutionStarted', 'TaskScheduled']);
    expect(store.reads).to.deep.equal(['metadata']);
    expect(record.deactivate).to.deep.equal([]);
  });

  it('a lease fire while a worker holds the activity writes nothing and hands out no second copy', async () => {
    const handedOut = worker.items.length;
    await store.clock.advance(5000);
    const { ctx, record, commit } = store.turn();
    await actor.onReminder('run', undefined, ctx, { actorType: 'wf', actorId: 'i1', name: 'run', dueAt: store.clock.now() });
    commit();
    expect(record).to.deep.equal({ deactivate: [], sets: [], deletes: [], remindersCreated: [], remindersDeleted: [] });
    expect(worker.items).to.have.length(handedOut);
  });

  it('activity result: recorded in the inbox in one write; a duplicate changes nothing', async () => {
    const claim = dispatcher.claimActivity('i1', 1);
    if (!('item' in claim)) throw new Error('no activity item was handed out');
    const { item } = claim;
    const event = { eventId: -1, timestamp: store.clock.now(), type: 'TaskCompleted', taskScheduledId: 1, result: '2' };
    const rec = await run('activityResult', { event, generation: item.generation });
    dispatcher.release(item);
    expect(rec.sets.sort()).to.deep.equal(['inbox-1', 'metadata']);
    expect(rec.remindersCreated).to.deep.equal([]);
    const dup = await run('activityResult', { event, generation: item.generation });
    expect(dup.sets).to.deep.equal([]);
  });

  it('second result: appends only its new history events (3..5), never rewrites earlier ones', async () => {
    const rec = await answer([{ id: 2, type: 'CompleteOrchestration', status: 'COMPLETED', result: '"done"', carryoverEvents: [] }]);
    expect(rec.sets.sort()).to.deep.equal(['history-000003', 'history-000004', 'history-000005', 'metadata']);
    expect(rec.deactivate, 'the finished instance frees its activation').to.have.length(1);
    expect(rec.deletes).to.deep.equal(['inbox-1']);
    expect(rec.remindersDeleted).to.deep.equal(['run']);
    const meta = JSON.parse(store.state.get('metadata')!.toString()) as { historyLength: number; inboxRanges: number[][] };
    expect(meta.historyLength).to.equal(6);
    expect(meta.inboxRanges).to.deep.equal([]);
    const types = [...Array(6).keys()].map((i) => (JSON.parse(store.state.get(`history-00000${i}`)!.toString()) as HistoryEvent).type);
    expect(types).to.deep.equal(['OrchestratorStarted', 'ExecutionStarted', 'TaskScheduled', 'OrchestratorStarted', 'TaskCompleted', 'ExecutionCompleted']);
  });

  it('a finished instance out of memory is read from its metadata and two events: get, a late result, a raised event', async () => {
    await actor.onDeactivate();
    store.reads.length = 0;
    const { ctx } = store.turn();
    const snap = JSON.parse((await actor.invoke('get', undefined, ctx))!.toString()) as { runtimeStatus: string; input: string; output: string };
    expect(snap).to.include({ runtimeStatus: 'COMPLETED', input: '"x"', output: '"done"' });
    const late = { eventId: -1, timestamp: store.clock.now(), type: 'TaskCompleted', taskScheduledId: 1, result: '2' };
    const dropped = await run('activityResult', { event: late, generation: 1 });
    const raised = await run('event', { event: { eventId: -1, timestamp: store.clock.now(), type: 'EventRaised', name: 'e' } });
    expect([...dropped.sets, ...raised.sets], 'events for a finished instance are dropped').to.deep.equal([]);
    expect(raised.deactivate, 'and keep no activation').to.have.length(1);
    expect(new Set(store.reads)).to.deep.equal(new Set(['metadata', 'history-000001', 'history-000005']));
    await actor.onDeactivate();
  });

  it("a history range out of memory reads the metadata and only the range's keys, and keeps no activation", async () => {
    store.reads.length = 0;
    const { record, range } = await historyRange(2, 3);
    expect(range?.historyLength).to.equal(6);
    expect(range?.events.map((e) => e.type)).to.deep.equal(['TaskScheduled', 'OrchestratorStarted', 'TaskCompleted']);
    expect(store.reads).to.deep.equal(['metadata', 'history-000002', 'history-000003', 'history-000004']);
    expect(record.deactivate).to.have.length(1);
    expect((await historyRange(5, 500)).range?.events.map((e) => e.type), 'the last page').to.deep.equal(['ExecutionCompleted']);
    expect((await historyRange(6, 500)).range, 'at the end').to.deep.equal({ historyLength: 6, events: [] });
    expect((await historyRange(9, 500)).range, 'past the end').to.deep.equal({ historyLength: 6, events: [] });
  });

  it('get and purge: a terminal instance is deleted key by key, reminders included', async () => {
    const { ctx } = store.turn();
    const snap = JSON.parse((await actor.invoke('get', undefined, ctx))!.toString()) as { runtimeStatus: string; output: string };
    expect(snap).to.include({ runtimeStatus: 'COMPLETED', output: '"done"' });
    expect(JSON.parse(store.index.get('i1')!.toString())).to.include({ status: 'COMPLETED' });
    const rec = await run('purge', {});
    expect(store.index.size).to.equal(0);
    expect(rec.deletes.sort()).to.deep.equal(['history-000000', 'history-000001', 'history-000002', 'history-000003', 'history-000004', 'history-000005', 'metadata']);
    expect(store.state.size).to.equal(0);
    expect(rec.remindersDeleted).to.include('run');
  });

  it('a timer due in year 9999 (the SDKs\' indefinite wait for an event) gets no reminder; a timer due at a time does', async () => {
    await run('create', { name: 'wf', instanceId: 'i1' });
    const forEver = { fireAt: Date.UTC(9999, 11, 31, 23, 59, 59, 999), fireAtNanos: 999_999, name: 'approval', origin: { kind: 'externalEvent' as const, name: 'approval' } };
    const rec = await answer([
      { id: 0, type: 'CreateTimer', ...forEver },
      { id: 1, type: 'CreateTimer', fireAt: store.clock.now() + 60_000 },
    ]);
    expect(rec.remindersCreated).to.deep.equal(['timer-1-1']);
    const created = JSON.parse(store.state.get('history-000002')!.toString()) as HistoryEvent;
    expect(created, 'stored as the worker sent it').to.deep.include({ eventId: 0, type: 'TimerCreated', ...forEver });
  });
});

