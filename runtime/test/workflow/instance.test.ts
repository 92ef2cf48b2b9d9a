import { expect } from 'chai';
import type { HistoryEvent } from '../../src/workflow/history.js';
import { eventRaised, executionResumed, executionSuspended, executionTerminated, taskCompleted, taskFailed, timerFired } from '../../src/workflow/history-events.js';
import { Instance, type SideEffects, type TurnPlan, type WorkerAction } from '../../src/workflow/instance.js';

const T0 = 1_700_000_000_000;

function started(input = '"in"', extra: Partial<Parameters<typeof Instance.create>[0]> = {}): Instance {
  const inst = Instance.create({ name: 'wf', instanceId: 'i1', input, ...extra }, T0);
  inst.takeChanges();
  return inst;
}

/** Runs one worker turn: plan, then apply `actions` as the worker's answer. */
async function turn(inst: Instance, actions: WorkerAction[], now = T0 + 1, customStatus?: string): Promise<{ plan: TurnPlan; fx: SideEffects; invalid?: string }> {
  const { batch } = await inst.plan(now);
  if (!batch) throw new Error('expected a batch');
  const { effects, invalid } = await inst.applyWorkerResult({ seqs: batch.seqs, orchestratorStarted: batch.newEvents[0] as HistoryEvent }, actions, customStatus, now);
  return { plan: batch, fx: effects, ...(invalid !== undefined ? { invalid } : {}) };
}

const types = (events: readonly HistoryEvent[]) => events.map((e) => e.type);

describe('workflow Instance (history/inbox rules)', () => {
  it('starts PENDING with ExecutionStarted in the inbox; the first batch is OrchestratorStarted + ExecutionStarted', async () => {
    const inst = started();
    expect(inst.status).to.equal('PENDING');
    const { batch } = await inst.plan(T0 + 5);
    expect(batch).to.not.equal(undefined);
    expect(types(batch!.newEvents)).to.deep.equal(['OrchestratorStarted', 'ExecutionStarted']);
    expect(batch!.newEvents[0]!.timestamp).to.equal(T0 + 5);
    expect(batch!.pastEvents).to.deep.equal([]);
  });

  it('records actions with their ids as eventIds and reports the side effects', async () => {
    const inst = started();
    const { fx } = await turn(inst, [
      { id: 1, type: 'ScheduleTask', name: 'act', input: '1' },
      { id: 2, type: 'CreateTimer', fireAt: T0 + 60_000 },
      { id: 3, type: 'CreateSubOrchestration', instanceId: 'i1:0003', name: 'child', input: '2' },
    ]);
    expect(types(inst.history)).to.deep.equal(['OrchestratorStarted', 'ExecutionStarted', 'TaskScheduled', 'TimerCreated', 'SubOrchestrationInstanceCreated']);
    expect(inst.history.slice(2).map((e) => e.eventId)).to.deep.equal([1, 2, 3]);
    expect(inst.status).to.equal('RUNNING');
    expect(fx.activities).to.deep.equal([{ taskId: 1, name: 'act', input: '1' }]);
    expect(fx.timers).to.deep.equal([{ timerId: 2, fireAt: T0 + 60_000 }]);
    expect(fx.children[0]!.parent).to.deep.equal({ instanceId: 'i1', name: 'wf', taskScheduledId: 3, generation: 1 });
  });

  it("names a sub-workflow started without an ID `<parent>:<action id as 4 hex digits>` (the Go SDK sends none)", async () => {
    const inst = started();
    const { fx } = await turn(inst, [
      { id: 10, type: 'CreateSubOrchestration', instanceId: '', name: 'child' },
      { id: 0x1234f, type: 'CreateSubOrchestration', instanceId: '', name: 'child' },
    ]);
    expect(fx.children.map((c) => c.instanceId)).to.deep.equal(['i1:000a', 'i1:1234f']);
    expect(inst.history.filter((e) => e.type === 'SubOrchestrationInstanceCreated').map((e) => (e.type === 'SubOrchestrationInstanceCreated' ? e.instanceId : ''))).to.deep.equal(['i1:000a', 'i1:1234f']);
  });

  it('an invalid action is never dropped: the task fails where the workflow sees it, or the run fails', async () => {
    const inst = started();
    const { fx } = await turn(inst, [
      { id: 1, type: 'CreateSubOrchestration', instanceId: 'bad/../id', name: 'child' },
      { id: 2, type: 'ScheduleTask', name: '' },
    ]);
    expect(fx.children).to.deep.equal([]);
    expect(fx.activities).to.deep.equal([]);
    const { batch } = await inst.plan(T0 + 2);
    const failures = batch!.newEvents.slice(1);
    expect(failures.map((e) => e.type)).to.deep.equal(['SubOrchestrationInstanceFailed', 'TaskFailed']);
    expect(failures[0]).to.deep.include({ taskScheduledId: 1 });
    expect(failures[0]!.type === 'SubOrchestrationInstanceFailed' && failures[0]!.failureDetails.errorType).to.equal('InvalidInstanceId');
    expect(failures[1]!.type === 'TaskFailed' && failures[1]!.failureDetails.errorType).to.equal('InvalidActivityName');

    const other = started();
    await turn(other, [{ id: 1, type: 'SendEvent', instanceId: 'x\u0000y', name: 'e' }]);
    expect(other.status).to.equal('FAILED');
    expect(other.snapshot('i1').failureDetails?.errorType).to.equal('InvalidInstanceId');
  });

  it('an answer with two actions of one id fails the instance and says why', async () => {
    const inst = started();
    const { fx, invalid } = await turn(inst, [
      { id: 1, type: 'ScheduleTask', name: 'a' },
      { id: 1, type: 'ScheduleTask', name: 'b' },
    ]);
    expect(invalid).to.match(/more than one action with id 1/);
    expect(fx.activities).to.deep.equal([]);
    expect(inst.status).to.equal('FAILED');
    expect(inst.snapshot('i1').failureDetails?.errorType).to.equal('InvalidWorkflowActions');
  });

  it('thousands of pending results keep the metadata small: inbox sequence numbers are stored as ranges', async () => {
    const inst = started();
    await turn(inst, Array.from({ length: 5000 }, (_, i) => ({ id: i, type: 'ScheduleTask' as const, name: 'a' })));
    for (let i = 0; i < 5000; i++) expect(inst.accept(taskCompleted({ timestamp: T0 + 3 }, i, '1'))).to.equal(true);
    expect(inst.accept(taskCompleted({ timestamp: T0 + 3 }, 7, undefined)), 'a duplicate of a waiting result').to.equal(false);
    expect(inst.meta.inboxRanges).to.have.length(1);
    expect(JSON.stringify(inst.meta).length).to.be.below(400);
    const { batch } = await inst.plan(T0 + 4);
    expect(batch!.seqs).to.have.length(5000);
  });

  it('writes only the new history events and the consumed inbox keys (append-only)', async () => {
    const inst = started();
    await turn(inst, [{ id: 1, type: 'ScheduleTask', name: 'act' }]);
    const first = inst.takeChanges();
    expect(first.historyFrom).to.equal(0);
    expect(inst.history.length).to.equal(3);
    expect(first.removedInbox).to.have.length(1);
    inst.accept(taskCompleted({ timestamp: T0 + 2 }, 1, '"r"'));
    await turn(inst, [], T0 + 3);
    const second = inst.takeChanges();
    expect(second.historyFrom).to.equal(3);
    expect(inst.history.length).to.equal(5);
    expect(second.deleteHistoryFrom).to.equal(undefined);
  });

  it('records an activity result once: duplicates in the inbox or in history are refused', async () => {
    const inst = started();
    await turn(inst, [{ id: 1, type: 'ScheduleTask', name: 'act' }]);
    const done = taskCompleted({ timestamp: T0 + 2 }, 1, '1');
    expect(inst.accept(done)).to.equal(true);
    expect(inst.accept(taskCompleted({ timestamp: T0 + 3 }, 1, '2'))).to.equal(false);
    await turn(inst, []);
    expect(inst.accept(done)).to.equal(false);
    expect(inst.history.filter((e) => e.type === 'TaskCompleted')).to.have.length(1);
  });

  it("gives an activity's result its call's taskExecutionId, in the batch and in history (newer SDKs read it to retry)", async () => {
    const inst = started();
    await turn(inst, [{ id: 1, type: 'ScheduleTask', name: 'act', taskExecutionId: 'exec-1' }, { id: 2, type: 'ScheduleTask', name: 'plain' }]);
    inst.accept(taskFailed({ timestamp: T0 + 2 }, 1, { errorType: 'E', errorMessage: 'no' }));
    inst.accept(taskCompleted({ timestamp: T0 + 2 }, 2, '1'));
    const { plan } = await turn(inst, []);
    const results = plan.newEvents.filter((e) => e.type === 'TaskFailed' || e.type === 'TaskCompleted');
    expect(results.map((e) => ('taskExecutionId' in e ? e.taskExecutionId : undefined))).to.deep.equal(['exec-1', undefined]);
    expect(inst.history.find((e) => e.type === 'TaskFailed')).to.include({ taskExecutionId: 'exec-1' });
  });

  it('keeps a result whose request is not in history yet in the inbox instead of delivering it', async () => {
    const inst = started();
    await turn(inst, []);
    expect(inst.accept(taskCompleted({ timestamp: T0 + 2 }, 7, undefined))).to.equal(true);
    const r = await inst.plan(T0 + 3);
    expect(r.batch).to.equal(undefined);
    expect(inst.inbox).to.have.length(1);
  });

  it('delivers an event raised before the workflow waits for it', async () => {
    const inst = started();
    inst.accept(eventRaised({ timestamp: T0 }, 'Approval', 'true'));
    const { plan } = await turn(inst, []);
    expect(types(plan.newEvents)).to.deep.equal(['OrchestratorStarted', 'ExecutionStarted', 'EventRaised']);
    expect(inst.history.some((e) => e.type === 'EventRaised')).to.equal(true);
  });

  it('delivers raised events after the other events, one per name per batch, in arrival order', async () => {
    const inst = started();
    await turn(inst, [{ id: 1, type: 'ScheduleTask', name: 'a' }]);
    inst.accept(eventRaised({ timestamp: T0 + 2 }, 'item', '1'));
    inst.accept(taskCompleted({ timestamp: T0 + 3 }, 1, undefined));
    inst.accept(eventRaised({ timestamp: T0 + 4 }, 'item', '2'));
    const { plan } = await turn(inst, [], T0 + 5);
    expect(plan.newEvents.map((e) => (e.type === 'EventRaised' ? `item${e.input}` : e.type))).to.deep.equal(['OrchestratorStarted', 'TaskCompleted', 'item1']);
    const second = (await inst.plan(T0 + 6)).batch!;
    expect(second.newEvents.map((e) => (e.type === 'EventRaised' ? `item${e.input}` : e.type))).to.deep.equal(['OrchestratorStarted', 'item2']);
  });

  it('suspends at once, holds new events while suspended, and delivers them after resume', async () => {
    const inst = started();
    await turn(inst, []);
    inst.accept(executionSuspended({ timestamp: T0 + 2 }, undefined));
    expect(inst.status).to.equal('SUSPENDED');
    expect((await inst.plan(T0 + 3)).batch).to.equal(undefined);
    expect(types(inst.history).at(-1)).to.equal('ExecutionSuspended');
    inst.accept(eventRaised({ timestamp: T0 + 4 }, 'x', undefined));
    expect((await inst.plan(T0 + 5)).batch).to.equal(undefined);
    expect(inst.inbox).to.have.length(1);
    inst.accept(executionResumed({ timestamp: T0 + 6 }, undefined));
    expect(inst.status).to.equal('RUNNING');
    const { batch } = await inst.plan(T0 + 7);
    expect(types(inst.history).at(-1)).to.equal('ExecutionResumed');
    expect(types(batch!.newEvents)).to.deep.equal(['OrchestratorStarted', 'EventRaised']);
  });

  it('terminates without a worker, recursively messaging open children, and then drops events', async () => {
    const inst = started();
    await turn(inst, [{ id: 1, type: 'CreateSubOrchestration', instanceId: 'c1', name: 'child' }, { id: 2, type: 'ScheduleTask', name: 'a' }]);
    inst.accept(executionTerminated({ timestamp: T0 + 5 }, '"stop"', true));
    const r = await inst.plan(T0 + 6);
    expect(r.batch).to.equal(undefined);
    expect(inst.status).to.equal('TERMINATED');
    expect(inst.snapshot('i1').output).to.equal('"stop"');
    expect(r.effects.messages.map((m) => [m.instanceId, m.event.type])).to.deep.equal([['c1', 'ExecutionTerminated']]);
    expect(r.effects.cancelledActivities).to.deep.equal([{ generation: 1, id: 2 }]);
    expect(inst.accept(eventRaised({ timestamp: T0 + 7 }, 'late', undefined))).to.equal(false);
  });

  it('terminates a PENDING instance (never run) keeping its name and input', async () => {
    const inst = started('"x"');
    inst.accept(executionTerminated({ timestamp: T0 + 1 }, undefined, false));
    await inst.plan(T0 + 2);
    const snap = inst.snapshot('i1');
    expect(snap.runtimeStatus).to.equal('TERMINATED');
    expect(snap.input).to.equal('"x"');
  });

  it('continue-as-new starts a new generation with the new input, carry-over and undelivered events', async () => {
    const inst = started('1');
    await turn(inst, [{ id: 1, type: 'CreateTimer', fireAt: T0 + 1000 }]);
    const oldLength = inst.history.length;
    inst.takeChanges();
    const { batch } = await inst.plan(T0 + 2);
    expect(batch).to.equal(undefined);
    inst.accept(timerFired({ timestamp: T0 + 1000 }, 1, T0 + 1000));
    const b = (await inst.plan(T0 + 1001)).batch!;
    inst.accept(eventRaised({ timestamp: T0 + 1002 }, 'late', '9'));
    const carried = eventRaised({ timestamp: T0 + 500 }, 'kept', '8');
    const { effects: fx } = await inst.applyWorkerResult({ seqs: b.seqs, orchestratorStarted: b.newEvents[0]! }, [{ id: 2, type: 'CompleteOrchestration', status: 'CONTINUED_AS_NEW', result: '2', carryoverEvents: [carried] }], '', T0 + 1003);
    expect(inst.meta.generation).to.equal(2);
    expect(inst.history).to.deep.equal([]);
    expect(inst.status).to.equal('RUNNING');
    expect(inst.inbox.map((i) => i.event.type)).to.deep.equal(['ExecutionStarted', 'EventRaised', 'EventRaised']);
    expect(inst.pendingStart!.input).to.equal('2');
    expect(inst.inbox.map((i) => (i.event.type === 'EventRaised' ? i.event.name : ''))).to.deep.equal(['', 'kept', 'late']);
    const changes = inst.takeChanges();
    expect(changes.deleteHistoryFrom).to.deep.equal({ from: 0, to: oldLength + 2 });
    expect(fx.cancelledTimers).to.deep.equal([]);
    // A result for the previous generation is stale.
    expect(inst.accept(taskCompleted({ timestamp: T0 }, 1, undefined), 1)).to.equal(false);
  });

  it('a finished child reports to its parent with the parent task id and generation', async () => {
    const parent = { instanceId: 'p', name: 'pwf', taskScheduledId: 4, generation: 3 };
    const inst = started('1', { parent });
    const { fx } = await turn(inst, [{ id: 1, type: 'CompleteOrchestration', status: 'COMPLETED', result: '"ok"', carryoverEvents: [] }]);
    expect(inst.status).to.equal('COMPLETED');
    expect(fx.messages).to.have.length(1);
    expect(fx.messages[0]!.instanceId).to.equal('p');
    expect(fx.messages[0]!.generation).to.equal(3);
    expect(fx.messages[0]!.event).to.include({ type: 'SubOrchestrationInstanceCompleted', taskScheduledId: 4, result: '"ok"' });
  });

  it('a failed workflow without failure details gets them (the SDK worker-level failure case)', async () => {
    const inst = started();
    await turn(inst, [{ id: -1, type: 'CompleteOrchestration', status: 'FAILED', result: 'boom', carryoverEvents: [] }]);
    expect(inst.status).to.equal('FAILED');
    expect(inst.snapshot('i1').failureDetails).to.deep.equal({ errorType: 'WorkflowFailed', errorMessage: 'boom' });
  });

  it('keeps failure details and custom status as the worker reported them', async () => {
    const inst = started();
    await turn(inst, [{ id: 1, type: 'CompleteOrchestration', status: 'FAILED', failureDetails: { errorType: 'Error', errorMessage: 'bad', stackTrace: 'at x' }, carryoverEvents: [] }], T0 + 1, 'stage 2');
    const snap = inst.snapshot('i1');
    expect(snap.failureDetails).to.deep.equal({ errorType: 'Error', errorMessage: 'bad', stackTrace: 'at x' });
    expect(snap.customStatus).to.equal('stage 2');
  });

  it('refuses a worker answer that no longer fits (stale generation or history)', async () => {
    const inst = started();
    const { plan } = await turn(inst, []);
    expect(inst.fits(plan)).to.equal(false);
  });

  it('waits for a delayed start', async () => {
    const inst = Instance.create({ name: 'wf', instanceId: 'i', scheduledStartTime: T0 + 60_000 }, T0);
    const r = await inst.plan(T0 + 1);
    expect(r.batch).to.equal(undefined);
    expect(r.startAt).to.equal(T0 + 60_000);
    expect((await inst.plan(T0 + 60_000)).batch).to.not.equal(undefined);
  });

  it('a new run of a terminal ID deletes the old history and inbox keys', async () => {
    const inst = started();
    await turn(inst, [{ id: 1, type: 'CompleteOrchestration', status: 'COMPLETED', carryoverEvents: [] }]);
    const again = Instance.create({ name: 'wf', instanceId: 'i1' }, T0 + 10, inst.meta);
    const changes = again.takeChanges();
    expect(again.meta.generation).to.equal(2);
    expect(changes.deleteHistoryFrom).to.deep.equal({ from: 0, to: 3 });
    expect(again.status).to.equal('PENDING');
  });
});
