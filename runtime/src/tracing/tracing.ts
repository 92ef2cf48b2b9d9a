/**
 * The tracer provider of svcd, registered globally at start: an OpenTelemetry TracerProvider (parent-based ratio
 * sampling, a bounded batch queue to an OTLP exporter), the W3C trace-context and baggage propagators, and the
 * AsyncLocalStorage context manager. Code that traces uses only `@opentelemetry/api` (`trace.getTracer`,
 * `context`, `propagation`) and this folder's helpers; nothing holds the provider itself.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/logger.js';
import { RUNTIME_VERSION } from '../version.js';
import { setTracingEnabled } from './enabled.js';
import { otlpExporter, OutageLoggingExporter } from './exporter.js';
import type { TracingOptions } from './options.js';
import { spanCountingMeterProvider, spanCounts } from './span-counts.js';

/** Spans waiting for export, at most (the rest are dropped and counted): a few MB of memory whatever happens. */
const MAX_QUEUED_SPANS = 4096;
const MAX_BATCH_SPANS = 512;
const EXPORT_DELAY_MS = 1_000;
/** A batch the exporter has not settled by then (its own timeout is shorter) no longer holds up the next one. */
const BATCH_TIMEOUT_MS = 10_000;

export interface TracingParts {
  readonly appId: string;
  readonly metrics: Registry;
  readonly log: Logger;
  /** Read at start, once the Configuration is loaded; undefined: tracing off. */
  readonly options: () => TracingOptions | undefined;
  /** Replaces the OTLP exporter (tests: an in-memory one). */
  readonly exporter?: SpanExporter;
}

export class Tracing {
  readonly name = 'tracing';
  #provider: TracerProvider | undefined;

  constructor(private readonly parts: TracingParts) {}

  start(): Promise<void> {
    const options = this.parts.options();
    if (options === undefined) return Promise.resolve();
    const target = options.exporter;
    // Rate 0 exports nothing, not even the spans of a caller's sampled trace (as the reference system: 0 turns
    // export off); the contexts still go on, with the caller's sampled flag as it was.
    const exporting = options.samplingRate > 0;
    const exporter = !exporting ? undefined : (this.parts.exporter ?? (target && new OutageLoggingExporter(otlpExporter(target), this.parts.log.child({ scope: 'tracing' }), target.url)));
    const counts = spanCounts(this.parts.metrics);
    this.#provider = new TracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: this.parts.appId, [ATTR_SERVICE_VERSION]: RUNTIME_VERSION }),
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.samplingRate) }),
      spanProcessors: exporter
        ? [new BatchSpanProcessor({ exporter, maxQueueSize: MAX_QUEUED_SPANS, maxExportBatchSize: MAX_BATCH_SPANS, scheduledDelayMillis: EXPORT_DELAY_MS, exportTimeoutMillis: BATCH_TIMEOUT_MS, selfObsMeterProvider: spanCountingMeterProvider(counts) })]
        : [],
    });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
    trace.setGlobalTracerProvider(this.#provider);
    setTracingEnabled(true);
    this.parts.log.info({ samplingRate: options.samplingRate, collector: exporter ? (target?.url ?? 'in-process') : 'none (spans not exported)', protocol: target?.protocol }, 'tracing on');
    return Promise.resolve();
  }

  /** Exports what is queued (bounded by the export timeout), then unregisters everything. */
  async stop(): Promise<void> {
    const provider = this.#provider;
    if (!provider) return;
    this.#provider = undefined;
    setTracingEnabled(false);
    await provider.shutdown().catch(() => undefined);
    trace.disable();
    propagation.disable();
    context.disable();
  }
}
