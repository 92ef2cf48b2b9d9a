/**
 * The OTLP span exporter (HTTP or gRPC, the maintained OpenTelemetry exporters), and a wrapper that says when the
 * collector stops taking spans and when it takes them again: once each, not once per batch.
 */
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpGrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as OtlpHttpExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from '../log/logger.js';
import type { OtlpTarget } from './options.js';

/**
 * How long one export may take. Short: while a collector does not answer, a batch waits this long before its spans
 * count as dropped, and the queue behind it fills (and drops) instead of growing.
 */
const EXPORT_TIMEOUT_MS = 5_000;

export function otlpExporter(target: OtlpTarget): SpanExporter {
  const config = { url: target.url, timeoutMillis: EXPORT_TIMEOUT_MS };
  return target.protocol === 'grpc' ? new OtlpGrpcExporter(config) : new OtlpHttpExporter(config);
}

export class OutageLoggingExporter implements SpanExporter {
  #failing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly log: Logger,
    private readonly url: string,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      const failed = result.code !== ExportResultCode.SUCCESS;
      // Outside any request's context: the export began in whichever request ended a span last, and its line is
      // not that request's.
      context.with(ROOT_CONTEXT, () => {
        if (failed && !this.#failing) this.log.warn({ collector: this.url, err: result.error?.message }, 'span export failed: spans are dropped (svc_tracing_spans_dropped_total) until the collector takes them again');
        if (!failed && this.#failing) this.log.info({ collector: this.url }, 'span export works again');
      });
      this.#failing = failed;
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
