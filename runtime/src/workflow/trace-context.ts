/**
 * W3C trace contexts of workflow runs, as text (`traceparent`: `00-<trace id>-<span id>-<flags>`): what an instance
 * stores, what its work items carry, and the span ids its spans get. Pure: no tracer here (workflow-tracing.ts).
 *
 * Two spans are named before they exist, so that their children can name them and that a restart changes nothing:
 * a run's orchestration span (its id drawn when the run starts and stored with it, `RunTrace.spanId`) and each
 * activity's span (its id derived from the run's and the task id: the same on every hand-out of that activity).
 */
import { createHash, randomBytes } from 'node:crypto';
import { isSpanContextValid, TraceFlags, type SpanContext } from '@opentelemetry/api';
import type { RunTrace, TraceContext } from './history.js';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-|$)/;

/** A fresh span id (16 hex digits, not all zero). */
export function newSpanId(): string {
  for (;;) {
    const id = randomBytes(8).toString('hex');
    if (id !== '0000000000000000') return id;
  }
}

/** The span id of a run's span of kind `kind` for task `id`: the same whoever computes it, whenever. */
export function derivedSpanId(runSpanId: string, kind: string, id: number): string {
  const hex = createHash('sha256').update(`${runSpanId}|${kind}|${id}`).digest('hex').slice(0, 16);
  return hex === '0000000000000000' ? '0000000000000001' : hex;
}

/** The span context a `traceparent` names (remote); undefined when it is not a valid version-00-compatible one. */
export function spanContextOf(tc: TraceContext): SpanContext | undefined {
  const m = TRACEPARENT.exec(tc.traceParent.trim().toLowerCase());
  if (!m || m[1] === 'ff') return undefined;
  const sc: SpanContext = { traceId: m[2] as string, spanId: m[3] as string, traceFlags: parseInt(m[4] as string, 16) & TraceFlags.SAMPLED, isRemote: true };
  return isSpanContextValid(sc) ? sc : undefined;
}

/** The trace id of a stored context; undefined when malformed. */
export function traceIdOf(tc: TraceContext | undefined): string | undefined {
  return tc ? spanContextOf(tc)?.traceId : undefined;
}

/**
 * What a new run stores of a span context: only a valid, sampled one (a trace not sampled records nothing, so
 * its runs carry nothing and cost nothing — the parent-based sampling durabletask-go applies too).
 */
export function storedContextOf(sc: SpanContext, traceState?: string): TraceContext | undefined {
  if (!isSpanContextValid(sc) || (sc.traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
  const out: TraceContext = { traceParent: `00-${sc.traceId}-${sc.spanId}-01` };
  if (traceState !== undefined && traceState !== '') out.traceState = traceState;
  return out;
}

/** The context of a span of the run with id `spanId`: same trace, same trace state. */
function withSpan(run: RunTrace, spanId: string): TraceContext | undefined {
  const traceId = traceIdOf(run.parent);
  if (traceId === undefined) return undefined;
  return { traceParent: `00-${traceId}-${spanId}-01`, ...(run.parent.traceState !== undefined ? { traceState: run.parent.traceState } : {}) };
}

/** The run's orchestration span as a parent: of its sub-workflows' runs. */
export function runContext(run: RunTrace): TraceContext | undefined {
  return withSpan(run, run.spanId);
}

/** The span of activity `taskId` of the run as a parent: what its `ActivityRequest.parentTraceContext` carries. */
export function activityContext(run: RunTrace, taskId: number): TraceContext | undefined {
  return withSpan(run, activitySpanId(run, taskId));
}

export function activitySpanId(run: RunTrace, taskId: number): string {
  return derivedSpanId(run.spanId, 'activity', taskId);
}
