/**
 * Conversions between the engine's transport-free model and the Durable Task protobuf messages (as loaded by
 * @grpc/proto-loader: camelCase fields, wrappers as `{value}`, timestamps as `{seconds, nanos}`, enums as names).
 * The one place that knows the wire shape.
 */
import type {
  ActivityRequest,
  CreateTimerAction__Output,
  OrchestrationIdReusePolicy__Output,
  HistoryEvent as WireEvent,
  HistoryEvent__Output as WireEventOut,
  OrchestrationState,
  OrchestrationStatus,
  OrchestratorAction__Output,
  TaskFailureDetails,
  TaskFailureDetails__Output,
  Timestamp,
  Timestamp__Output,
  TraceContext as WireTraceContext,
  TraceContext__Output as WireTraceContextOut,
  WorkItem as WireWorkItem,
} from '@svc/proto';
import { decodeOrchestratorAction, encodeEventsField, encodeOrchestratorWorkItem, orchestrationStatusNumber } from '@svc/proto';
import { YIELD_SLICE, inSlices, yieldToEventLoop } from '../../../util/event-loop.js';
import { RuntimeError, ensureError } from '../../../errors/runtime-error.js';
import type { WorkItem } from '../../../workflow/work-items.js';
import type { IdReusePolicy, RuntimeStatus, WorkflowInstance } from '../../../workflow/engine.js';
import type { FailureDetails } from '../../../workflow/history.js';
import type { CompletionStatus, HistoryEvent, TimerDetails, TimerOrigin, TraceContext } from '../../../workflow/history.js';
import type { WorkerAction } from '../../../workflow/instance.js';
import { optional } from '../../../workflow/optional.js';
import { eventRaised } from '../../../workflow/history-events.js';

type StringValue = { value: string } | null;

const sv = (v: string | undefined): StringValue => (v === undefined ? null : { value: v });

/** A present StringValue's text; `undefined` when absent. */
export const text = (v: { value: string } | null | undefined): string | undefined => (v ? v.value : undefined);

/** Like `text`, but the empty string (what SDKs send for "nothing") also means absent. */
export const nonEmptyText = (v: { value: string } | null | undefined): string | undefined => (v && v.value !== '' ? v.value : undefined);

/** `nanosPastMs`: the part of the time below the millisecond, when it was kept (see `TimerDetails.fireAtNanos`). */
function toTimestamp(ms: number, nanosPastMs = 0): Timestamp {
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: Math.round((ms - seconds * 1000) * 1e6) + nanosPastMs };
}

/** Epoch ms, or undefined for an absent timestamp. */
export function fromTimestamp(ts: Timestamp__Output | null | undefined): number | undefined {
  if (!ts) return undefined;
  return Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6);
}

/** A timer's name and origin on the wire (`CreateTimerAction` and `TimerCreatedEvent` share the fields). */
function toWireTimerDetails(e: TimerDetails): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (e.name !== undefined) out.name = e.name;
  if (e.origin) {
    const { kind, ...fields } = e.origin;
    out[kind] = fields;
  }
  return out;
}

function fromWireTimer(t: CreateTimerAction__Output): { fireAt: number } & TimerDetails {
  const nanos = (t.fireAt?.nanos ?? 0) % 1e6;
  const origin = t.origin ? ({ kind: t.origin, ...t[t.origin] } as TimerOrigin) : undefined;
  return { fireAt: fromTimestamp(t.fireAt) ?? Date.now(), ...(nanos > 0 ? { fireAtNanos: nanos } : {}), ...optional('name', t.name), ...(origin ? { origin } : {}) };
}

/** `spanID` stays empty: the span id is in `traceParent` (the field is deprecated). */
function toWireTrace(tc: TraceContext | undefined): WireTraceContext | null {
  return tc ? { traceParent: tc.traceParent, spanID: '', traceState: sv(tc.traceState) } : null;
}

/** A request's own trace context (newer SDKs); undefined when it carries none. */
export function fromWireTrace(tc: WireTraceContextOut | null | undefined): TraceContext | undefined {
  if (!tc || tc.traceParent === '') return undefined;
  return { traceParent: tc.traceParent, ...optional('traceState', nonEmptyText(tc.traceState)) };
}

const REUSE_ACTIONS: Record<string, IdReusePolicy['action']> = { ERROR: 'error', IGNORE: 'ignore', TERMINATE: 'terminate' };

/** The start request's reuse policy (`orchestrationIdReusePolicy`, `enforceUniqueInstanceId`); undefined: the default. */
export function fromReusePolicy(p: OrchestrationIdReusePolicy__Output | null, unique: boolean): IdReusePolicy | undefined {
  if (unique) return { unique: true };
  if (!p) return undefined;
  const statuses = p.operationStatus.map((s) => s.replace('ORCHESTRATION_STATUS_', '') as RuntimeStatus);
  return { statuses, action: REUSE_ACTIONS[p.action] ?? 'error' };
}

/** As a number: `encodeEventsField` encodes events as given, and protobuf enums are numbers on the wire. */
const statusNumber = (status: CompletionStatus) => orchestrationStatusNumber(`ORCHESTRATION_STATUS_${status}`) as OrchestrationStatus;

/** Never CANCELED: the Durable Task SDKs have no such status to parse it as; the engine does not produce it either. */
function toWireStatus(status: RuntimeStatus): OrchestrationStatus {
  return `ORCHESTRATION_STATUS_${status === 'CANCELED' ? 'TERMINATED' : status}`;
}

const COMPLETION_STATUSES: Record<string, CompletionStatus> = {
  ORCHESTRATION_STATUS_COMPLETED: 'COMPLETED',
  ORCHESTRATION_STATUS_FAILED: 'FAILED',
  ORCHESTRATION_STATUS_TERMINATED: 'TERMINATED',
  ORCHESTRATION_STATUS_CANCELED: 'TERMINATED',
  ORCHESTRATION_STATUS_CONTINUED_AS_NEW: 'CONTINUED_AS_NEW',
};

function toWireFailure(f: FailureDetails | undefined): TaskFailureDetails | null {
  if (!f) return null;
  return {
    errorType: f.errorType,
    errorMessage: f.errorMessage,
    stackTrace: sv(f.stackTrace),
    innerFailure: toWireFailure(f.innerFailure),
    isNonRetriable: f.isNonRetriable === true,
  };
}

export function fromWireFailure(f: TaskFailureDetails__Output | null | undefined): FailureDetails | undefined {
  if (!f) return undefined;
  const out: FailureDetails = { errorType: f.errorType, errorMessage: f.errorMessage };
  const stack = nonEmptyText(f.stackTrace);
  if (stack !== undefined) out.stackTrace = stack;
  const inner = fromWireFailure(f.innerFailure);
  if (inner) out.innerFailure = inner;
  if (f.isNonRetriable) out.isNonRetriable = true;
  return out;
}

/**
 * The event's head, then the one field of its kind, added: a literal starting with a spread of the head gave each
 * event a hidden class of its own (see `history-events.ts`), and protobuf's encoder reads some twenty fields of each.
 */
function wireEvent<K extends keyof WireEvent>(e: HistoryEvent, kind: K, payload: WireEvent[K]): WireEvent {
  const w: WireEvent = { eventId: e.eventId, timestamp: toTimestamp(e.timestamp) };
  w[kind] = payload;
  return w;
}

export function toWireEvent(e: HistoryEvent): WireEvent {
  switch (e.type) {
    case 'ExecutionStarted':
      return wireEvent(e, 'executionStarted', {
        name: e.name,
        input: sv(e.input),
        orchestrationInstance: { instanceId: e.instanceId, executionId: sv(e.executionId) },
        parentInstance: e.parent
          ? { taskScheduledId: e.parent.taskScheduledId, name: sv(e.parent.name), orchestrationInstance: { instanceId: e.parent.instanceId } }
          : null,
        scheduledStartTimestamp: e.scheduledStartTime !== undefined ? toTimestamp(e.scheduledStartTime) : null,
        parentTraceContext: toWireTrace(e.trace?.parent),
        orchestrationSpanID: sv(e.trace?.spanId),
      });
    case 'ExecutionCompleted':
      return wireEvent(e, 'executionCompleted', { orchestrationStatus: statusNumber(e.status), result: sv(e.result), failureDetails: toWireFailure(e.failureDetails) });
    case 'ExecutionTerminated':
      return wireEvent(e, 'executionTerminated', { input: sv(e.input), recurse: e.recurse === true });
    case 'TaskScheduled':
      return wireEvent(e, 'taskScheduled', { name: e.name, input: sv(e.input), ...optional('taskExecutionId', e.taskExecutionId) });
    case 'TaskCompleted':
      return wireEvent(e, 'taskCompleted', { taskScheduledId: e.taskScheduledId, result: sv(e.result), ...optional('taskExecutionId', e.taskExecutionId) });
    case 'TaskFailed':
      return wireEvent(e, 'taskFailed', { taskScheduledId: e.taskScheduledId, failureDetails: toWireFailure(e.failureDetails), ...optional('taskExecutionId', e.taskExecutionId) });
    case 'SubOrchestrationInstanceCreated':
      return wireEvent(e, 'subOrchestrationInstanceCreated', { instanceId: e.instanceId, name: e.name, input: sv(e.input) });
    case 'SubOrchestrationInstanceCompleted':
      return wireEvent(e, 'subOrchestrationInstanceCompleted', { taskScheduledId: e.taskScheduledId, result: sv(e.result) });
    case 'SubOrchestrationInstanceFailed':
      return wireEvent(e, 'subOrchestrationInstanceFailed', { taskScheduledId: e.taskScheduledId, failureDetails: toWireFailure(e.failureDetails) });
    case 'TimerCreated':
      return wireEvent(e, 'timerCreated', { fireAt: toTimestamp(e.fireAt, e.fireAtNanos), ...toWireTimerDetails(e) });
    case 'TimerFired':
      return wireEvent(e, 'timerFired', { timerId: e.timerId, fireAt: toTimestamp(e.fireAt) });
    case 'OrchestratorStarted':
      return wireEvent(e, 'orchestratorStarted', {});
    case 'EventSent':
      return wireEvent(e, 'eventSent', { instanceId: e.instanceId, name: e.name, input: sv(e.input) });
    case 'EventRaised':
      return wireEvent(e, 'eventRaised', { name: e.name, input: sv(e.input) });
    case 'ExecutionSuspended':
      return wireEvent(e, 'executionSuspended', { input: sv(e.input) });
    case 'ExecutionResumed':
      return wireEvent(e, 'executionResumed', { input: sv(e.input) });
  }
}

/** Only events a worker may hand back (continue-as-new carry-over): raised events. Others are ignored. */
function fromWireCarryover(e: WireEventOut): HistoryEvent | undefined {
  if (e.eventRaised) {
    return eventRaised({ timestamp: fromTimestamp(e.timestamp) ?? Date.now() }, e.eventRaised.name, text(e.eventRaised.input));
  }
  return undefined;
}

/** One action of a worker's answer in the engine's terms; undefined for an action of no kind svcd knows. */
export function fromWireAction(a: OrchestratorAction__Output): WorkerAction | undefined {
  const id = a.id;
  if (a.scheduleTask) {
    const t = a.scheduleTask;
    return { id, type: 'ScheduleTask', name: t.name, ...optional('input', text(t.input)), ...optional('taskExecutionId', t.taskExecutionId || undefined) };
  }
  if (a.createTimer) return { id, type: 'CreateTimer', ...fromWireTimer(a.createTimer) };
  if (a.createSubOrchestration) {
    const c = a.createSubOrchestration;
    return { id, type: 'CreateSubOrchestration', instanceId: c.instanceId, name: c.name, ...optional('input', text(c.input)) };
  }
  if (a.sendEvent) {
    const s = a.sendEvent;
    return { id, type: 'SendEvent', instanceId: s.instance?.instanceId ?? '', name: s.name, ...optional('data', text(s.data)) };
  }
  if (a.terminateOrchestration) {
    const t = a.terminateOrchestration;
    return { id, type: 'TerminateOrchestration', instanceId: t.instanceId, recurse: t.recurse, ...optional('reason', text(t.reason)) };
  }
  if (a.completeOrchestration) {
    const c = a.completeOrchestration;
    const failureDetails = fromWireFailure(c.failureDetails);
    return {
      id,
      type: 'CompleteOrchestration',
      status: COMPLETION_STATUSES[c.orchestrationStatus] ?? 'COMPLETED',
      ...optional('result', text(c.result)),
      ...(failureDetails ? { failureDetails } : {}),
      carryoverEvents: c.carryoverEvents.flatMap((e) => fromWireCarryover(e) ?? []),
    };
  }
  return undefined;
}

/**
 * The actions of an answer split by `splitOrchestratorResponse`, decoded and converted in slices (a 100,000-action
 * answer decoded at once held the event loop for hundreds of milliseconds). Undecodable bytes: ERR_MALFORMED_REQUEST.
 */
export async function decodeWireActions(encoded: Iterable<Uint8Array>): Promise<WorkerAction[]> {
  const out: WorkerAction[] = [];
  await inSlices(encoded, (bytes, index) => {
    let wire: OrchestratorAction__Output;
    try {
      wire = decodeOrchestratorAction(bytes);
    } catch (err) {
      throw new RuntimeError('ERR_MALFORMED_REQUEST', `action ${index} of the answer cannot be decoded: ${ensureError(err).message}`);
    }
    const action = fromWireAction(wire);
    if (action) out.push(action);
  });
  return out;
}

/**
 * The encoded prefix of one history, kept by its first event (which lives as long as the history): the bytes
 * of its first `count` events as a few large field-3 chunks. History is append-only within a run, so the next
 * turn encodes only what was appended; `last` detects a history that was replaced (continue-as-new, rerun).
 */
interface EncodedPrefix {
  readonly count: number;
  readonly last: HistoryEvent;
  readonly chunks: readonly Buffer[];
}
const encodedHistories = new WeakMap<HistoryEvent, EncodedPrefix>();
/** More chunks than this are merged into one: an item copies a handful of buffers, however many turns ran. */
const MAX_CHUNKS = 16;

async function encodedPastEvents(events: readonly HistoryEvent[]): Promise<readonly Buffer[]> {
  const first = events[0];
  if (!first) return [];
  const known = encodedHistories.get(first);
  const reusable = known && known.count <= events.length && events[known.count - 1] === known.last ? known : undefined;
  let chunks = [...(reusable?.chunks ?? []), ...(await encodeInSlices(3, events.slice(reusable?.count ?? 0)))];
  if (chunks.length > MAX_CHUNKS) chunks = [Buffer.concat(chunks)];
  encodedHistories.set(first, { count: events.length, last: events.at(-1) as HistoryEvent, chunks });
  return chunks;
}

/**
 * Events as field entries, one chunk per slice, yielding between slices: the first turn after a 100,000-activity
 * fan-out encodes 100,000 past events, and the results that came in while a worker replayed can be as many.
 */
async function encodeInSlices(field: 3 | 4, events: readonly HistoryEvent[]): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for (let from = 0; from < events.length; from += YIELD_SLICE) {
    if (from > 0) await yieldToEventLoop();
    chunks.push(encodeEventsField(field, events.slice(from, from + YIELD_SLICE).map(toWireEvent)));
  }
  return chunks;
}

/**
 * The bytes of a work item for the `GetWorkItems` stream. Orchestration items are assembled from the history's
 * bytes encoded once (`encodedPastEvents`) plus the new events.
 */
export async function encodeWorkItem(item: WorkItem, completionToken: string, serialize: (wire: WireWorkItem) => Buffer): Promise<Buffer> {
  if (item.kind === 'activity') {
    const activityRequest: ActivityRequest = {
      name: item.name,
      input: sv(item.input),
      orchestrationInstance: { instanceId: item.instanceId },
      taskId: item.taskId,
      parentTraceContext: toWireTrace(item.parentTrace),
    };
    return serialize({ activityRequest, completionToken });
  }
  const started = item.pastEvents.find((e) => e.type === 'ExecutionStarted') ?? item.newEvents.find((e) => e.type === 'ExecutionStarted');
  const past = await encodedPastEvents(item.pastEvents);
  const fresh = await encodeInSlices(4, item.newEvents);
  return encodeOrchestratorWorkItem(item.instanceId, started?.type === 'ExecutionStarted' ? started.executionId : undefined, [...past, ...fresh], completionToken);
}

export function toWireState(i: WorkflowInstance, withPayloads: boolean): OrchestrationState {
  const state: OrchestrationState = {
    instanceId: i.instanceId,
    name: i.name,
    orchestrationStatus: toWireStatus(i.runtimeStatus),
    createdTimestamp: toTimestamp(i.createdAt.getTime()),
    lastUpdatedTimestamp: toTimestamp(i.lastUpdatedAt.getTime()),
    scheduledStartTimestamp: i.scheduledStartTime ? toTimestamp(i.scheduledStartTime.getTime()) : null,
    parentInstanceId: sv(i.parentInstanceId),
  };
  if (withPayloads) {
    state.input = sv(i.input);
    state.output = sv(i.output);
    state.customStatus = sv(i.customStatus);
    state.failureDetails = toWireFailure(i.failureDetails);
  }
  return state;
}

