/**
 * The one way history events are made: a function per event type, so each event's fields, and which of them are
 * left out when absent, are decided here for every producer (the instance's rules, the engine's client calls, the
 * orchestration actor, rerun). `at` is when, and the event id: the id of the worker's action an event records,
 * -1 (the default) for events the engine makes.
 */
import { randomUUID } from 'node:crypto';
import type { CompletionStatus, EventOf, FailureDetails, HistoryEvent, ParentInfo, TimerDetails, TraceContext } from './history.js';
import { newSpanId } from './trace-context.js';
import { optional } from './optional.js';

export interface EventStamp {
  readonly timestamp: number;
  readonly eventId?: number;
}

/*
 * Each event's literal starts with its own fields, never with a spread of shared ones: on Node 20's V8 a literal that
 * starts by spreading another object gets a hidden class of its own once its function is optimized — a map and a
 * descriptor array per object, ~300 bytes kept for every event of a history, an inbox or a held batch, and property
 * reads no inline cache can serve. A spread after the first field adds properties the ordinary way.
 */

/**
 * `e` with `changes` (a new timestamp, an id), as `{ ...e, ...changes }` would make it, with the hidden class every
 * event of its kind shares (above).
 */
export function changedEvent<E extends HistoryEvent>(e: E, changes: Partial<E>): E {
  return Object.assign({}, e, changes);
}

/**
 * A run starts (a new execution id each time: start, continue-as-new, a new run of a finished ID). A traced start
 * (`parentTrace`) gets its orchestration span's id now, stored with the run.
 */
export function executionStarted(
  at: EventStamp,
  f: { name: string; instanceId: string; input?: string | undefined; parent?: ParentInfo | undefined; scheduledStartTime?: number | undefined; parentTrace?: TraceContext | undefined },
): EventOf<'ExecutionStarted'> {
  return {
    eventId: at.eventId ?? -1,
    timestamp: at.timestamp,
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
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'ExecutionCompleted', status, ...optional('result', f.result), ...optional('failureDetails', f.failureDetails) };
}

export function executionTerminated(at: EventStamp, input: string | undefined, recurse: boolean): EventOf<'ExecutionTerminated'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'ExecutionTerminated', ...optional('input', input), recurse };
}

export function executionSuspended(at: EventStamp, input: string | undefined): EventOf<'ExecutionSuspended'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'ExecutionSuspended', ...optional('input', input) };
}

export function executionResumed(at: EventStamp, input: string | undefined): EventOf<'ExecutionResumed'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'ExecutionResumed', ...optional('input', input) };
}

export function orchestratorStarted(at: EventStamp): EventOf<'OrchestratorStarted'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'OrchestratorStarted' };
}

export function taskScheduled(at: EventStamp, name: string, input: string | undefined, taskExecutionId?: string): EventOf<'TaskScheduled'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'TaskScheduled', name, ...optional('input', input), ...optional('taskExecutionId', taskExecutionId) };
}

export function taskCompleted(at: EventStamp, taskScheduledId: number, result: string | undefined): EventOf<'TaskCompleted'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'TaskCompleted', taskScheduledId, ...optional('result', result) };
}

export function taskFailed(at: EventStamp, taskScheduledId: number, failureDetails: FailureDetails): EventOf<'TaskFailed'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'TaskFailed', taskScheduledId, failureDetails };
}

export function childCreated(at: EventStamp, instanceId: string, name: string, input: string | undefined): EventOf<'SubOrchestrationInstanceCreated'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'SubOrchestrationInstanceCreated', instanceId, name, ...optional('input', input) };
}

export function childCompleted(at: EventStamp, taskScheduledId: number, result: string | undefined): EventOf<'SubOrchestrationInstanceCompleted'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'SubOrchestrationInstanceCompleted', taskScheduledId, ...optional('result', result) };
}

export function childFailed(at: EventStamp, taskScheduledId: number, failureDetails: FailureDetails): EventOf<'SubOrchestrationInstanceFailed'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'SubOrchestrationInstanceFailed', taskScheduledId, failureDetails };
}

/** Name and origin as the worker sent them: the SDK replays them, the waiting view reads them. */
export function timerCreated(at: EventStamp, fireAt: number, details: TimerDetails): EventOf<'TimerCreated'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'TimerCreated', fireAt, ...optional('fireAtNanos', details.fireAtNanos), ...optional('name', details.name), ...optional('origin', details.origin) };
}

export function timerFired(at: EventStamp, timerId: number, fireAt: number): EventOf<'TimerFired'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'TimerFired', timerId, fireAt };
}

export function eventSent(at: EventStamp, instanceId: string, name: string, input: string | undefined): EventOf<'EventSent'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'EventSent', instanceId, name, ...optional('input', input) };
}

export function eventRaised(at: EventStamp, name: string, input: string | undefined, trace?: TraceContext): EventOf<'EventRaised'> {
  return { eventId: at.eventId ?? -1, timestamp: at.timestamp, type: 'EventRaised', name, ...optional('input', input), ...optional('trace', trace) };
}
