/**
 * The one way history events are made: a function per event type, so each event's fields, and which of them are
 * left out when absent, are decided here for every producer (the instance's rules, the engine's client calls, the
 * orchestration actor, rerun). `at` is when, and the event id: the id of the worker's action an event records,
 * -1 (the default) for events the engine makes.
 */
import { randomUUID } from 'node:crypto';
import type { CompletionStatus, EventOf, FailureDetails, ParentInfo, TimerDetails, TraceContext } from './history.js';
import { newSpanId } from './trace-context.js';
import { optional } from './optional.js';

export interface EventStamp {
  readonly timestamp: number;
  readonly eventId?: number;
}

const stamp = (at: EventStamp) => ({ eventId: at.eventId ?? -1, timestamp: at.timestamp });

/**
 * A run starts (a new execution id each time: start, continue-as-new, a new run of a finished ID). A traced start
 * (`parentTrace`) gets its orchestration span's id now, stored with the run.
 */
export function executionStarted(
  at: EventStamp,
  f: { name: string; instanceId: string; input?: string | undefined; parent?: ParentInfo | undefined; scheduledStartTime?: number | undefined; parentTrace?: TraceContext | undefined },
): EventOf<'ExecutionStarted'> {
  return {
    ...stamp(at),
    type: 'ExecutionStarted',
    name: f.name,
    instanceId: f.instanceId,
    executionId: randomUUID(),
    ...optional('input', f.input),
    ...optional('parent', f.parent),
    ...optional('scheduledStartTime', f.scheduledStartTime),
    ...(f.parentTrace ? { trace: { parent: f.parentTrace, spanId: newSpanId() } } : {}),
  };
}

export function executionCompleted(at: EventStamp, status: CompletionStatus, f: { result?: string | undefined; failureDetails?: FailureDetails | undefined } = {}): EventOf<'ExecutionCompleted'> {
  return { ...stamp(at), type: 'ExecutionCompleted', status, ...optional('result', f.result), ...optional('failureDetails', f.failureDetails) };
}

export function executionTerminated(at: EventStamp, input: string | undefined, recurse: boolean): EventOf<'ExecutionTerminated'> {
  return { ...stamp(at), type: 'ExecutionTerminated', ...optional('input', input), recurse };
}

export function executionSuspended(at: EventStamp, input: string | undefined): EventOf<'ExecutionSuspended'> {
  return { ...stamp(at), type: 'ExecutionSuspended', ...optional('input', input) };
}

export function executionResumed(at: EventStamp, input: string | undefined): EventOf<'ExecutionResumed'> {
  return { ...stamp(at), type: 'ExecutionResumed', ...optional('input', input) };
}

export function orchestratorStarted(at: EventStamp): EventOf<'OrchestratorStarted'> {
  return { ...stamp(at), type: 'OrchestratorStarted' };
}

export function taskScheduled(at: EventStamp, name: string, input: string | undefined, taskExecutionId?: string): EventOf<'TaskScheduled'> {
  return { ...stamp(at), type: 'TaskScheduled', name, ...optional('input', input), ...optional('taskExecutionId', taskExecutionId) };
}

export function taskCompleted(at: EventStamp, taskScheduledId: number, result: string | undefined): EventOf<'TaskCompleted'> {
  return { ...stamp(at), type: 'TaskCompleted', taskScheduledId, ...optional('result', result) };
}

export function taskFailed(at: EventStamp, taskScheduledId: number, failureDetails: FailureDetails): EventOf<'TaskFailed'> {
  return { ...stamp(at), type: 'TaskFailed', taskScheduledId, failureDetails };
}

export function childCreated(at: EventStamp, instanceId: string, name: string, input: string | undefined): EventOf<'SubOrchestrationInstanceCreated'> {
  return { ...stamp(at), type: 'SubOrchestrationInstanceCreated', instanceId, name, ...optional('input', input) };
}

export function childCompleted(at: EventStamp, taskScheduledId: number, result: string | undefined): EventOf<'SubOrchestrationInstanceCompleted'> {
  return { ...stamp(at), type: 'SubOrchestrationInstanceCompleted', taskScheduledId, ...optional('result', result) };
}

export function childFailed(at: EventStamp, taskScheduledId: number, failureDetails: FailureDetails): EventOf<'SubOrchestrationInstanceFailed'> {
  return { ...stamp(at), type: 'SubOrchestrationInstanceFailed', taskScheduledId, failureDetails };
}

/** Name and origin as the worker sent them: the SDK replays them, the waiting view reads them. */
export function timerCreated(at: EventStamp, fireAt: number, details: TimerDetails): EventOf<'TimerCreated'> {
  return { ...stamp(at), type: 'TimerCreated', fireAt, ...optional('fireAtNanos', details.fireAtNanos), ...optional('name', details.name), ...optional('origin', details.origin) };
}

export function timerFired(at: EventStamp, timerId: number, fireAt: number): EventOf<'TimerFired'> {
  return { ...stamp(at), type: 'TimerFired', timerId, fireAt };
}

export function eventSent(at: EventStamp, instanceId: string, name: string, input: string | undefined): EventOf<'EventSent'> {
  return { ...stamp(at), type: 'EventSent', instanceId, name, ...optional('input', input) };
}

export function eventRaised(at: EventStamp, name: string, input: string | undefined, trace?: TraceContext): EventOf<'EventRaised'> {
  return { ...stamp(at), type: 'EventRaised', name, ...optional('input', input), ...optional('trace', trace) };
}
