/**
 * History events as workers receive them. `encodeEventsField` encodes the events `toWireEvent` makes as they are,
 * without protobufjs `fromObject`: for every event type, with and without its optional parts, the bytes must be
 * those the message-building encoder gives, and decode to what the engine recorded.
 */
import { expect } from 'chai';
import protobuf from 'protobufjs';
import { decodeOrchestratorAction, durableTaskType, encodeEventsField } from '@svc/proto';
import type { EventBody, HistoryEvent } from '../../src/workflow/history.js';
import { fromWireAction, toWireEvent } from '../../src/api/grpc/durabletask/wire.js';

const failure = { errorType: 'Boom', errorMessage: 'it broke: ✗', stackTrace: 'at x', isNonRetriable: true, innerFailure: { errorType: 'Inner', errorMessage: 'cause' } };
const parent = { instanceId: 'parent-1', name: 'outer', taskScheduledId: 7, generation: 2 };
// 2100-01-01T00:00:00.123Z: its seconds do not fit in 32 bits (Timestamp.seconds is an int64).
const FAR = 4_102_444_800_123;

const bodies: EventBody[] = [
  { type: 'ExecutionStarted', name: 'wf', instanceId: 'i-1', executionId: 'e-1' },
  { type: 'ExecutionStarted', name: 'wf', input: '{"a":1}', instanceId: 'i-1', executionId: 'e-1', parent, scheduledStartTime: FAR },
  { type: 'ExecutionCompleted', status: 'COMPLETED', result: '42' },
  { type: 'ExecutionCompleted', status: 'FAILED', failureDetails: failure },
  { type: 'ExecutionCompleted', status: 'TERMINATED' },
  { type: 'ExecutionCompleted', status: 'CONTINUED_AS_NEW', result: '"next"' },
  { type: 'ExecutionTerminated' },
  { type: 'ExecutionTerminated', input: '"why"', recurse: true },
  { type: 'TaskScheduled', name: 'act' },
  { type: 'TaskScheduled', name: 'act', input: '""' },
  { type: 'TaskScheduled', name: 'act', input: '1', taskExecutionId: 'exec-1' },
  { type: 'TaskCompleted', taskScheduledId: 0 },
  { type: 'TaskCompleted', taskScheduledId: 3, result: 'null' },
  { type: 'TaskFailed', taskScheduledId: 4, failureDetails: { errorType: 'E', errorMessage: '' } },
  { type: 'TaskFailed', taskScheduledId: 4, failureDetails: failure },
  { type: 'TaskCompleted', taskScheduledId: 3, result: '2', taskExecutionId: 'exec-1' },
  { type: 'TaskFailed', taskScheduledId: 4, failureDetails: failure, taskExecutionId: 'exec-1' },
  { type: 'SubOrchestrationInstanceCreated', instanceId: 'child', name: 'sub' },
  { type: 'SubOrchestrationInstanceCreated', instanceId: 'child', name: 'sub', input: '[1]' },
  { type: 'SubOrchestrationInstanceCompleted', taskScheduledId: 5, result: '{}' },
  { type: 'SubOrchestrationInstanceFailed', taskScheduledId: 5, failureDetails: failure },
  { type: 'TimerCreated', fireAt: FAR },
  { type: 'TimerCreated', fireAt: FAR, name: 'nap', origin: { kind: 'createTimer' } },
  { type: 'TimerCreated', fireAt: FAR, fireAtNanos: 999_999, name: 'approval', origin: { kind: 'externalEvent', name: 'approval' } },
  { type: 'TimerCreated', fireAt: FAR, origin: { kind: 'activityRetry', taskExecutionId: 'exec-1' } },
  { type: 'TimerCreated', fireAt: FAR, origin: { kind: 'childWorkflowRetry', instanceId: 'child-1' } },
  { type: 'TimerFired', timerId: 9, fireAt: 1_700_000_000_001 },
  { type: 'OrchestratorStarted' },
  { type: 'EventSent', instanceId: 'other', name: 'ping' },
  { type: 'EventSent', instanceId: 'other', name: 'ping', input: '1' },
  { type: 'EventRaised', name: 'approve' },
  { type: 'EventRaised', name: 'approve', input: 'true' },
  { type: 'ExecutionSuspended' },
  { type: 'ExecutionSuspended', input: '"hold"' },
  { type: 'ExecutionResumed', input: '"go"' },
];
const events: HistoryEvent[] = bodies.map((body, i) => ({ eventId: i % 3 === 0 ? -1 : i, timestamp: 1_700_000_000_000 + i * 1001, ...body }));

/** How the events were encoded before: each copied into a message by `fromObject`, then encoded. */
function encodedThroughMessages(field: 3 | 4, list: readonly HistoryEvent[]): Buffer {
  const type = durableTaskType('HistoryEvent');
  const w = protobuf.Writer.create();
  for (const e of list) type.encode(type.fromObject(toWireEvent(e)), w.uint32((field << 3) | 2).fork()).ldelim();
  return Buffer.from(w.finish());
}

/** The entries of one repeated field, decoded as a worker reads them (enum names, int64 as numbers). */
function decodeEntries(bytes: Buffer): Record<string, unknown>[] {
  const type = durableTaskType('HistoryEvent');
  const reader = protobuf.Reader.create(bytes);
  const out: Record<string, unknown>[] = [];
  while (reader.pos < reader.len) {
    reader.uint32(); // the field's tag
    out.push(type.toObject(type.decode(reader, reader.uint32()), { enums: String, longs: Number }));
  }
  return out;
}

/** An action as a worker's answer carries it, in the engine's terms. */
function actionFromWorker(wire: object): ReturnType<typeof fromWireAction> {
  const type = durableTaskType('OrchestratorAction');
  return fromWireAction(decodeOrchestratorAction(type.encode(type.fromObject(wire)).finish()));
}

describe('history events on the wire', () => {
  for (const field of [3, 4] as const) {
    it(`encodes every event type as the message-building encoder does (field ${field})`, () => {
      const wire = events.map(toWireEvent);
      expect(encodeEventsField(field, wire)).to.deep.equal(encodedThroughMessages(field, events));
      // One by one as well: no event's bytes depend on its neighbours.
      for (const e of events) expect(encodeEventsField(field, [toWireEvent(e)])).to.deep.equal(encodedThroughMessages(field, [e]));
    });
  }

  it('decodes to what the engine recorded: completion statuses by name, far timestamps, ids, failures', () => {
    const decoded = decodeEntries(encodeEventsField(3, events.map(toWireEvent)));
    expect(decoded).to.have.length(events.length);
    const completed = decoded.filter((d) => d.executionCompleted).map((d) => (d.executionCompleted as { orchestrationStatus: string }).orchestrationStatus);
    expect(completed).to.deep.equal(['ORCHESTRATION_STATUS_COMPLETED', 'ORCHESTRATION_STATUS_FAILED', 'ORCHESTRATION_STATUS_TERMINATED', 'ORCHESTRATION_STATUS_CONTINUED_AS_NEW']);
    const timer = decoded.find((d) => d.timerCreated) as { timerCreated: { fireAt: { seconds: number; nanos: number } } };
    expect(timer.timerCreated.fireAt).to.deep.equal({ seconds: Math.floor(FAR / 1000), nanos: 123_000_000 });
    expect(decoded.map((d) => d.eventId ?? 0)).to.deep.equal(events.map((e) => e.eventId));
    const failed = decoded.find((d) => d.taskFailed && (d.taskFailed as { failureDetails: { innerFailure?: unknown } }).failureDetails.innerFailure);
    expect(failed?.taskFailed).to.deep.include({ taskScheduledId: 4 });
    expect((failed?.taskFailed as { failureDetails: unknown }).failureDetails).to.deep.equal({
      errorType: 'Boom',
      errorMessage: 'it broke: ✗',
      stackTrace: { value: 'at x' },
      isNonRetriable: true,
      innerFailure: { errorType: 'Inner', errorMessage: 'cause', isNonRetriable: false },
    });
  });

  it("gives a worker's timer back as it created it: name, origin, and the fire time to the nanosecond", () => {
    // The "wait for ever" timer of Dapr's Go, Python, Java and .NET SDKs: they recognise it on replay by this exact time.
    const sentinel = { seconds: 253_402_300_799, nanos: 999_999_999 };
    const origins = [{ createTimer: {} }, { externalEvent: { name: 'approval' } }, { activityRetry: { taskExecutionId: 'exec-1' } }, { childWorkflowRetry: { instanceId: 'child-1' } }];
    for (const origin of origins) {
      const sent = { fireAt: sentinel, name: 'approval', ...origin };
      const action = actionFromWorker({ id: 3, createTimer: sent });
      if (action?.type !== 'CreateTimer') throw new Error(`not a timer: ${JSON.stringify(action)}`);
      const { id, type: _action, ...timer } = action;
      const [replayed] = decodeEntries(encodeEventsField(3, [toWireEvent({ eventId: id, timestamp: 1_700_000_000_000, type: 'TimerCreated', ...timer })]));
      expect(replayed?.timerCreated).to.deep.equal(sent);
    }
  });

  it("gives an activity's taskExecutionId (one per call, the same for its retries) back in its TaskScheduled", () => {
    const action = actionFromWorker({ id: 4, scheduleTask: { name: 'charge', taskExecutionId: 'exec-1' } });
    expect(action).to.deep.equal({ id: 4, type: 'ScheduleTask', name: 'charge', taskExecutionId: 'exec-1' });
    const [replayed] = decodeEntries(encodeEventsField(3, [toWireEvent({ eventId: 4, timestamp: 1_700_000_000_000, type: 'TaskScheduled', name: 'charge', taskExecutionId: 'exec-1' })]));
    expect(replayed?.taskScheduled).to.deep.equal({ name: 'charge', taskExecutionId: 'exec-1' });
    expect(actionFromWorker({ id: 4, scheduleTask: { name: 'charge' } }), 'none sent: none kept').to.deep.equal({ id: 4, type: 'ScheduleTask', name: 'charge' });
  });
});
