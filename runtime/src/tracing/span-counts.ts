/**
 * What became of the sampled spans, as Prometheus counters: `svc_tracing_spans_exported_total` and
 * `svc_tracing_spans_dropped_total{reason}` (`queue_full`: the export queue was at its bound; `export_failed`: the
 * collector did not take the batch). Fed by the batch span processor's own self-observability counter
 * (`otel.sdk.processor.span.processed`, with `error.type` on the failures) through a meter provider that knows only
 * that counter: no metrics SDK is needed for it.
 */
import { createNoopMeter, type Attributes, type Counter as OtelCounter, type Meter, type MeterProvider } from '@opentelemetry/api';
import { Counter, type Registry } from 'prom-client';

const PROCESSED_COUNTER = 'otel.sdk.processor.span.processed';

export interface SpanCounts {
  readonly exported: Counter;
  readonly dropped: Counter<'reason'>;
}

export function spanCounts(registry: Registry): SpanCounts {
  return {
    exported: new Counter({ name: 'svc_tracing_spans_exported_total', help: 'Sampled spans the collector took', registers: [registry] }),
    dropped: new Counter({
      name: 'svc_tracing_spans_dropped_total',
      help: 'Sampled spans never exported, by reason: queue_full (the export queue was full), export_failed (the collector did not take them)',
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}

function processedCounter(counts: SpanCounts): OtelCounter {
  return {
    add(value: number, attributes?: Attributes): void {
      const error = attributes?.['error.type'];
      if (error === undefined) counts.exported.inc(value);
      else counts.dropped.inc({ reason: error === 'queue_full' ? 'queue_full' : 'export_failed' }, value);
    },
  };
}

/** A meter provider for the span processor's `selfObsMeterProvider`: its processed counter is counted, the rest ignored. */
export function spanCountingMeterProvider(counts: SpanCounts): MeterProvider {
  const noop = createNoopMeter();
  const counter = processedCounter(counts);
  const meter: Meter = Object.assign(Object.create(noop) as Meter, {
    createCounter: (name: string, options?: unknown) => (name === PROCESSED_COUNTER ? counter : noop.createCounter(name, options as never)),
  });
  return { getMeter: () => meter };
}
