/**
 * The workflow engine's spans, through `@opentelemetry/api` only: the tracer provider, propagator and context
 * manager are whatever svcd registered globally (none: every call here is the API's no-op). Names, kinds and
 * attributes follow durabletask-go's, as daprd emits them (docs/tracing-workflows.md):
 *
 *   create_orchestration||<name>   CLIENT    the start call; parent: the caller's span
 *   orchestration||<name>          SERVER    one run, start to completion; parent: create_orchestration, or the
 *                                            parent run's orchestration span for a sub-workflow
 *   activity||<name>               CLIENT    one activity call, scheduled to result; parent: the run's span
 *   timer                          INTERNAL  created to fired; parent: the run's span
 *   orchestration_event||<name>    INTERNAL  an external event, raised to delivered; parent: the run's span,
 *                                            linked to the call that raised it
 *
 * A run's spans are made when what they describe is committed to its history (`TracedEvent`, after the turn's
 * commit), with the times the history recorded: a restart in between changes nothing. The orchestration and
 * activity spans keep the ids named in advance (trace-context.ts): the one the run stored, and the one each
 * activity's work item carried to the SDK.
 */
import { context, createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import type { EventOf, FailureDetails, HistoryEvent, RunTrace, TraceContext } from './history.js';
import { activitySpanId, spanContextOf, storedContextOf } from './trace-context.js';

const TRACER_NAME = 'svc.workflow';

/** A history event a traced run committed that ends a span, with what it needs: its run and the event that opened it. */
export interface TracedEvent {
  readonly run: EventOf<'ExecutionStarted'> & { trace: RunTrace };
  readonly event: HistoryEvent;
  /** TaskScheduled for an activity result, TimerCreated for a fired timer. */
  readonly opener?: HistoryEvent;
}

/** The active span's context, when it is sampled: what a raised event or a start stores. */
export function activeTraceContext(): TraceContext | undefined {
  const sc = trace.getSpanContext(context.active());
  return sc ? storedContextOf(sc, sc.traceState?.serialize()) : undefined;
}

/**
 * A client's start of a run: the `create_orchestration` span around `body`, whose context `body` stores with the
 * new run. Its parent is `given` (a start request's own trace context) or else the active span.
 */
export async function tracedStart<T>(name: string, instanceId: string, given: TraceContext | undefined, body: (parentTrace: TraceContext | undefined) => Promise<T>): Promise<T> {
  const givenContext = given ? spanContextOf(given) : undefined;
  const parent = givenContext ? trace.setSpanContext(context.active(), withState(givenContext, given)) : context.active();
  const span = tracer().startSpan(`create_orchestration||${name}`, { kind: SpanKind.CLIENT, attributes: taskAttributes('orchestration', name, instanceId) }, parent);
  const sc = span.spanContext();
  try {
    return await body(storedContextOf(sc, sc.traceState?.serialize()));
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}

/** Emits the spans the committed events end (in one turn's order). */
export function emitRunSpans(instanceId: string, events: readonly TracedEvent[]): void {
  const t = tracer();
  for (const e of events) emitOne(t, instanceId, e);
}

function emitOne(t: Tracer, instanceId: string, { run, event, opener }: TracedEvent): void {
  const parent = spanContextOf(run.trace.parent);
  const underRun = orchestrationOf(run.trace);
  if (!parent || !underRun) return;
  switch (event.type) {
    case 'ExecutionCompleted': {
      const attributes = { ...taskAttributes('orchestration', run.name, instanceId), 'durabletask.task.execution_id': run.executionId, 'durabletask.runtime_status': event.status };
      const caller = trace.setSpanContext(ROOT_CONTEXT, withState(parent, run.trace.parent));
      const span = startAt(t, `orchestration||${run.name}`, SpanKind.SERVER, caller, run.timestamp, attributes, run.trace.spanId);
      if (event.status === 'FAILED') fail(span, event.failureDetails);
      span.end(new Date(event.timestamp));
      return;
    }
    case 'TaskCompleted':
    case 'TaskFailed': {
      if (opener?.type !== 'TaskScheduled') return;
      const attributes = { ...taskAttributes('activity', opener.name, instanceId), 'durabletask.task.task_id': event.taskScheduledId };
      const span = startAt(t, `activity||${opener.name}`, SpanKind.CLIENT, underRun, opener.timestamp, attributes, activitySpanId(run.trace, event.taskScheduledId));
      if (event.type === 'TaskFailed') fail(span, event.failureDetails);
      span.end(new Date(event.timestamp));
      return;
    }
    case 'TimerFired': {
      if (opener?.type !== 'TimerCreated') return;
      const attributes = { 'durabletask.type': 'timer', 'durabletask.fire_at': new Date(event.fireAt).toISOString(), 'durabletask.task.task_id': event.timerId, 'durabletask.task.instance_id': instanceId };
      startAt(t, 'timer', SpanKind.INTERNAL, underRun, opener.timestamp, attributes).end(new Date(event.timestamp));
      return;
    }
    case 'EventRaised': {
      const raiser = event.trace ? spanContextOf(event.trace) : undefined;
      const links: Link[] = raiser ? [{ context: raiser }] : [];
      const attributes = { 'durabletask.type': 'event', 'durabletask.event.name': event.name, 'durabletask.task.instance_id': instanceId };
      const span = t.startSpan(`orchestration_event||${event.name}`, { kind: SpanKind.INTERNAL, startTime: new Date(event.timestamp), attributes, links }, underRun);
      span.end();
      return;
    }
    default:
      return;
  }
}

/** The API's tracer for the provider registered now (a tracer kept from an earlier provider would outlive it). */
function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

function taskAttributes(type: string, name: string, instanceId: string): Attributes {
  return { 'durabletask.type': type, 'durabletask.task.name': name, 'durabletask.task.instance_id': instanceId };
}

function withState(sc: SpanContext, tc: TraceContext | undefined): SpanContext {
  return tc?.traceState === undefined ? sc : { ...sc, traceState: createTraceState(tc.traceState) };
}

/** The run's orchestration span as a parent context (that span is made later, under the id the run stored). */
function orchestrationOf(run: RunTrace): Context | undefined {
  const parent = spanContextOf(run.parent);
  return parent && trace.setSpanContext(ROOT_CONTEXT, withState({ ...parent, spanId: run.spanId }, run.parent));
}

/**
 * A span under `parent` from `startMs`, with the span id `spanId` when given. The API names a span's id when it
 * starts it; like durabletask-go (`ChangeSpanID`), the id named in advance replaces it before the span ends —
 * the SDK's span keeps its context in the object `spanContext()` returns. A span whose context is not that
 * object (a provider that copies it) keeps its own id and says which it stands for.
 */
function startAt(t: Tracer, name: string, kind: SpanKind, parent: Context, startMs: number, attributes: Attributes, spanId?: string): Span {
  const span = t.startSpan(name, { kind, startTime: new Date(startMs), attributes }, parent);
  if (spanId !== undefined && span.isRecording()) {
    const own = span.spanContext();
    own.spanId = spanId;
    if (span.spanContext().spanId !== spanId) span.setAttribute('svc.workflow.span_id', spanId);
  }
  return span;
}

function fail(span: Span, f: FailureDetails | undefined): void {
  const message = f ? `${f.errorType}: ${f.errorMessage}` : 'failed';
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  if (f) span.recordException({ name: f.errorType, message: f.errorMessage, ...(f.stackTrace !== undefined ? { stack: f.stackTrace } : {}) });
}
