/**
 * svcd's tracing as a part of its lifecycle: at start, once the Configuration is read, the OpenTelemetry tracer
 * provider is registered globally if tracing is on (tracer-provider.ts, loaded only then); at stop, what is queued
 * is exported and everything unregistered. Code that traces uses only `@opentelemetry/api` (`trace.getTracer`,
 * `context`, `propagation`) and this folder's helpers; nothing holds the provider itself.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import type { SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/logger.js';
import { setTracingEnabled } from './enabled.js';
import type { TracingOptions } from './options.js';

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

  async start(): Promise<void> {
    const options = this.parts.options();
    if (options === undefined) return;
    const { registerTracerProvider } = await import('./tracer-provider.js');
    this.#provider = registerTracerProvider(this.parts, options);
    setTracingEnabled(true);
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
