/**
 * The Durable Task history event model, transport-free. Events are stored as JSON (one per state key) and
 * converted to the protobuf wire shape only by the gRPC layer (`api/grpc/durabletask/wire.ts`). Times are epoch milliseconds.
 *
 * Event ids follow the protocol: events created from a worker action carry the action id (TaskScheduled,
 * TimerCreated, SubOrchestrationInstanceCreated, EventSent, ExecutionCompleted); every other event has -1.
 */

export interface FailureDetails {
  errorType: string;
  errorMessage: string;
  stackTrace?: string;
  innerFailure?: FailureDetails;
  isNonRetriable?: boolean;
}

/** W3C trace context as the Durable Task protocol carries it (`TraceContext`): a `traceparent` and its `tracestate`. */
export interface TraceContext {
  traceParent: string;
  traceState?: string;
}

/**
 * How a run is traced (workflow-tracing.ts): the context of the call that started it and the span id of its
 * orchestration span, fixed when the run starts so that its children made before and after a restart all name it.
 * Absent when the start was not traced (no tracer provider, or a trace not sampled).
 */
export interface RunTrace {
  parent: TraceContext;
  spanId: string;
}

export type CompletionStatus = 'COMPLETED' | 'FAILED' | 'TERMINATED' | 'CONTINUED_AS_NEW';

export interface ParentInfo {
  instanceId: string;
  name: string;
  /** Id of the parent's SubOrchestrationInstanceCreated event; the child's completion carries it back. */
  taskScheduledId: number;
  /** Parent generation when the child was created: completions for another generation are stale. */
  generation: number;
}

/**
 * Why a timer exists, as newer SDKs (Dapr's Go, Python, Java, .NET) say when they create it; older SDKs and the JS
 * SDK say nothing. Stored as sent and handed back to the SDK in the history it replays.
 */
export type TimerOrigin =
  | { kind: 'createTimer' }
  | { kind: 'externalEvent'; name: string }
  | { kind: 'activityRetry'; taskExecutionId: string }
  | { kind: 'childWorkflowRetry'; instanceId: string };

/** What a worker may say of a timer besides its fire time. */
export interface TimerDetails {
  /**
   * Nanoseconds past `fireAt`'s millisecond (1 to 999,999; absent: none). SDKs recognise their "wait for ever"
   * timer by its exact fire time on replay (…59.999999999), so the history must give it back to the nanosecond.
   */
  fireAtNanos?: number;
  name?: string;
  origin?: TimerOrigin;
}

/**
 * An indefinite wait for an event is a timer due at 9999-12-31T23:59:59.999999999Z in newer SDKs: a timer due
 * this late never fires, so it gets no reminder (every waiting instance would otherwise keep one for nothing).
 */
const NEVER_FIRES_FROM = Date.UTC(9999, 0, 1);

export const neverFires = (fireAt: number): boolean => fireAt >= NEVER_FIRES_FROM;

export type EventBody =
  | { type: 'ExecutionStarted'; name: string; input?: string; instanceId: string; executionId: string; parent?: ParentInfo; scheduledStartTime?: number; trace?: RunTrace }
  | { type: 'ExecutionCompleted'; status: CompletionStatus; result?: string; failureDetails?: FailureDetails }
  | { type: 'ExecutionTerminated'; input?: string; recurse?: boolean }
  | { type: 'TaskScheduled'; name: string; input?: string; taskExecutionId?: string }
  | { type: 'TaskCompleted'; taskScheduledId: number; result?: string; taskExecutionId?: string }
  | { type: 'TaskFailed'; taskScheduledId: number; failureDetails: FailureDetails; taskExecutionId?: string }
  | { type: 'SubOrchestrationInstanceCreated'; instanceId: string; name: string; input?: string }
  | { type: 'SubOrchestrationInstanceCompleted'; taskScheduledId: number; result?: string }
  | { type: 'SubOrchestrationInstanceFailed'; taskScheduledId: number; failureDetails: FailureDetails }
  | ({ type: 'TimerCreated'; fireAt: number } & TimerDetails)
  | { type: 'TimerFired'; timerId: number; fireAt: number }
  | { type: 'OrchestratorStarted' }
  | { type: 'EventSent'; instanceId: string; name: string; input?: string }
  /** `trace`: the context of the call that raised it (the event's span links to it). */
  | { type: 'EventRaised'; name: string; input?: string; trace?: TraceContext }
  | { type: 'ExecutionSuspended'; input?: string }
  | { type: 'ExecutionResumed'; input?: string };

export type HistoryEvent = { eventId: number; timestamp: number } & EventBody;

export type EventType = EventBody['type'];

export type EventOf<T extends EventType> = Extract<HistoryEvent, { type: T }>;

/** Results that answer an earlier event of this instance, keyed by the id they answer. */
export function answeredId(e: HistoryEvent): { kind: 'task' | 'child' | 'timer'; id: number } | undefined {
  switch (e.type) {
    case 'TaskCompleted':
    case 'TaskFailed':
      return { kind: 'task', id: e.taskScheduledId };
    case 'SubOrchestrationInstanceCompleted':
    case 'SubOrchestrationInstanceFailed':
      return { kind: 'child', id: e.taskScheduledId };
    case 'TimerFired':
      return { kind: 'timer', id: e.timerId };
    default:
      return undefined;
  }
}
