/**
 * Spans as svcd makes them: one tracer, a span around a piece of async work in the context it makes active, and
 * failures recorded the same way everywhere (status ERROR, `error.type` the catalogue's code).
 */
import { context, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span, type SpanKind, type Tracer } from '@opentelemetry/api';
import { ensureError, isRuntimeError } from '../errors/runtime-error.js';
import { RUNTIME_VERSION } from '../version.js';

export { SpanKind } from '@opentelemetry/api';
export type { Span, Context, Attributes } from '@opentelemetry/api';

export function svcdTracer(): Tracer {
  return trace.getTracer('svcd', RUNTIME_VERSION);
}

/** The error's code (`ERR_STATE_STORE_NOT_FOUND`, …) or, for an error without one, its class name. */
export function errorType(err: unknown): string {
  return isRuntimeError(err) ? err.code : ensureError(err).name || 'Error';
}

export function recordFailure(span: Span, err: unknown): void {
  const e = ensureError(err);
  span.setAttribute('error.type', errorType(err));
  span.recordException(e);
  span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
}

export interface SpanSpec {
  readonly name: string;
  readonly kind: SpanKind;
  readonly attributes?: Attributes;
  /** The parent; the active context when absent. */
  readonly parent?: Context;
  /** Other spans this one is about (a batch: each message's publisher). */
  readonly links?: Link[];
}

/** Starts a span (not yet active): for work that ends elsewhere than where it began. */
export function startSpan(spec: SpanSpec): { span: Span; context: Context } {
  const parent = spec.parent ?? context.active();
  const span = svcdTracer().startSpan(spec.name, { kind: spec.kind, ...(spec.attributes ? { attributes: spec.attributes } : {}), ...(spec.links ? { links: spec.links } : {}) }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `work` with a new span active; the span ends when the work settles, a failure recorded on it. */
export async function inSpan<T>(spec: SpanSpec, work: (span: Span) => Promise<T>): Promise<T> {
  const { span, context: ctx } = startSpan(spec);
  try {
    return await context.with(ctx, () => work(span));
  } catch (err) {
    recordFailure(span, err);
    throw err;
  } finally {
    span.end();
  }
}
