/**
 * A real OpenTelemetry SDK for one test, registered globally as svcd registers its own: a tracer provider whose
 * spans go to an in-memory exporter, the AsyncLocalStorage context manager and the W3C propagators
 * (traceparent/tracestate and baggage). Code under test that uses only `@opentelemetry/api` records into it.
 * `uninstall()` restores the API's no-op globals, so tests after it run untraced.
 */
import { context, propagation, trace, type SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';

export class InMemoryTracing {
  readonly exporter = new InMemorySpanExporter();
  readonly provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: this.exporter })] });
  readonly #contextManager = new AsyncLocalStorageContextManager();

  private constructor() {}

  /** Registers the SDK globally; throws when another test left its own registered. */
  static install(): InMemoryTracing {
    const t = new InMemoryTracing();
    const ok =
      context.setGlobalContextManager(t.#contextManager.enable()) &&
      propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] })) &&
      trace.setGlobalTracerProvider(t.provider);
    if (!ok) throw new Error('an OpenTelemetry global was registered already: uninstall the earlier one first');
    return t;
  }

  /** The spans ended so far, in the order they ended. */
  spans(): ReadableSpan[] {
    return this.exporter.getFinishedSpans();
  }

  /** A `traceparent` of a sampled remote caller: what a traced client would send. */
  static traceparent(sc: Pick<SpanContext, 'traceId' | 'spanId'>): string {
    return `00-${sc.traceId}-${sc.spanId}-01`;
  }

  async uninstall(): Promise<void> {
    await this.provider.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  }
}
