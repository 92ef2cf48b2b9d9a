/**
 * The OpenTelemetry SDK side of tracing: a TracerProvider (parent-based ratio sampling, a bounded batch queue to an
 * OTLP exporter), the W3C trace-context and baggage propagators and the AsyncLocalStorage context manager,
 * registered globally. A module of its own so that svcd loads the SDK only when tracing is on (tracing.ts imports
 * it then): evaluating the SDK, its exporters and the semantic conventions was about a twentieth of every start.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { RUNTIME_VERSION } from '../version.js';
import { otlpExporter, OutageLoggingExporter } from './exporter.js';
import type { TracingOptions } from './options.js';
import { spanCountingMeterProvider, spanCounts } from './span-counts.js';
import type { TracingParts } from './tracing.js';

/** Spans waiting for export, at most (the rest are dropped and counted): a few MB of memory whatever happens. */
const MAX_QUEUED_SPANS = 4096;
const MAX_BATCH_SPANS = 512;
const EXPORT_DELAY_MS = 1_000;
/** A batch the exporter has not settled by then (its own timeout is shorter) no longer holds up the next one. */
const BATCH_TIMEOUT_MS = 10_000;

/** Makes the provider for `options` and registers it, the propagators and the context manager globally. */
export function registerTracerProvider(parts: TracingParts, options: TracingOptions): TracerProvider {
  const target = options.exporter;
  // Rate 0 exports nothing, not even the spans of a caller's sampled trace (as the reference system: 0 turns
  // export off); the contexts still go on, with the caller's sampled flag as it was.
  const exporting = options.samplingRate > 0;
  const exporter = !exporting ? undefined : (parts.exporter ?? (target && new OutageLoggingExporter(otlpExporter(target), parts.log.child({ scope: 'tracing' }), target.url)));
  const counts = spanCounts(parts.metrics);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: parts.appId, [ATTR_SERVICE_VERSION]: RUNTIME_VERSION }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.samplingRate) }),
    spanProcessors: exporter
      ? [new BatchSpanProcessor({ exporter, maxQueueSize: MAX_QUEUED_SPANS, maxExportBatchSize: MAX_BATCH_SPANS, scheduledDelayMillis: EXPORT_DELAY_MS, exportTimeoutMillis: BATCH_TIMEOUT_MS, selfObsMeterProvider: spanCountingMeterProvider(counts) })]
      : [],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  parts.log.info({ samplingRate: options.samplingRate, collector: exporter ? (target?.url ?? 'in-process') : 'none (spans not exported)', protocol: target?.protocol }, 'tracing on');
  return provider;
}
