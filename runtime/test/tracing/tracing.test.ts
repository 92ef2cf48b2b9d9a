/**
 * The tracer provider in-process: registered globally only when configured (the workflow engine and the logger
 * use nothing but @opentelemetry/api), parent-based sampling, rate 0 exporting nothing, a full export queue
 * counted as dropped spans.
 */
import { context, propagation, trace, type Span } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { expect } from 'chai';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { tracingEnabled } from '../../src/tracing/enabled.js';
import { contextFromHeaders, traceHeaders } from '../../src/tracing/propagation.js';
import { inSpan, SpanKind } from '../../src/tracing/spans.js';
import { Tracing } from '../../src/tracing/tracing.js';
import type { TracingOptions } from '../../src/tracing/options.js';

const silent = pino({ level: 'silent' });

function tracing(options: TracingOptions | undefined, exporter?: SpanExporter): { tracing: Tracing; metrics: Registry } {
  const metrics = new Registry();
  return { tracing: new Tracing({ appId: 'unit', metrics, log: silent, options: () => options, exporter }), metrics };
}

/** Keeps every exported span, also after shutdown (the SDK's in-memory exporter forgets them then). */
class KeepingExporter implements SpanExporter {
  readonly spans: ReadableSpan[] = [];
  export(spans: ReadableSpan[], done: (r: { code: ExportResultCode }) => void): void {
    this.spans.push(...spans);
    done({ code: ExportResultCode.SUCCESS });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const CALLER = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('Tracing (the provider svcd registers at start)', () => {
  let running: Tracing | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('registers nothing when tracing is off: spans are the API’s no-ops and no context is carried', async () => {
    running = tracing(undefined).tracing;
    await running.start();
    expect(tracingEnabled()).to.equal(false);
    const span = trace.getTracer('t').startSpan('x');
    expect(span.isRecording()).to.equal(false);
    expect(traceHeaders(contextFromHeaders({ traceparent: CALLER }))).to.deep.equal({});
  });

  it('registers provider, propagator and context manager globally: @opentelemetry/api alone makes and carries spans', async () => {
    const exporter = new KeepingExporter();
    running = tracing({ samplingRate: 1, exporter: undefined }, exporter).tracing;
    await running.start();
    expect(tracingEnabled()).to.equal(true);
    let inner: Span | undefined;
    await context.with(contextFromHeaders({ traceparent: CALLER, baggage: 'k=v' }), async () => {
      await inSpan({ name: 'outer', kind: SpanKind.SERVER }, async () => {
        await new Promise((r) => setTimeout(r, 1));
        inner = trace.getTracer('workflow').startSpan('inner');
        inner.end();
        expect(propagation.getActiveBaggage()?.getEntry('k')?.value).to.equal('v');
      });
    });
    await running.stop();
    running = undefined;
    const spans = exporter.spans;
    expect(spans.map((s) => s.name)).to.deep.equal(['inner', 'outer']);
    const outer = spans[1]!;
    expect(outer.spanContext().traceId).to.equal('0af7651916cd43dd8448eb211c80319c');
    expect(outer.parentSpanContext?.spanId).to.equal('b7ad6b7169203331');
    expect(spans[0]!.parentSpanContext?.spanId).to.equal(outer.spanContext().spanId);
    expect(outer.resource.attributes['service.name']).to.equal('unit');
  });

  it('records a failure with the catalogue’s code', async () => {
    const exporter = new KeepingExporter();
    running = tracing({ samplingRate: 1, exporter: undefined }, exporter).tracing;
    await running.start();
    const { RuntimeError } = await import('../../src/errors/runtime-error.js');
    await inSpan({ name: 'failing', kind: SpanKind.INTERNAL }, () => Promise.reject(new RuntimeError('ERR_STATE_STORE_NOT_FOUND', 'no store'))).catch(() => undefined);
    await running.stop();
    running = undefined;
    const [span] = exporter.spans;
    expect(span!.attributes['error.type']).to.equal('ERR_STATE_STORE_NOT_FOUND');
    expect(span!.status).to.deep.equal({ code: 2, message: 'no store' });
  });

  it('rate 0 exports nothing, not even under a sampled caller, yet carries the context on', async () => {
    const exporter = new KeepingExporter();
    running = tracing({ samplingRate: 0, exporter: undefined }, exporter).tracing;
    await running.start();
    let carried: { traceparent?: string } = {};
    await inSpan({ name: 'x', kind: SpanKind.SERVER, parent: contextFromHeaders({ traceparent: CALLER }) }, () => {
      carried = traceHeaders();
      return Promise.resolve();
    });
    await inSpan({ name: 'root', kind: SpanKind.SERVER }, () => Promise.resolve());
    await running.stop();
    running = undefined;
    expect(exporter.spans).to.deep.equal([]);
    expect(carried.traceparent).to.match(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(carried.traceparent).to.not.include('b7ad6b7169203331');
  });

  it('a full export queue drops spans and counts them; so does a collector that refuses them', async () => {
    // An exporter that answers only when let go: the first batch stays in flight, the queue behind it fills.
    type Done = (r: { code: ExportResultCode; error?: Error }) => void;
    const waiting: Done[] = [];
    let held = true;
    const refused = { code: ExportResultCode.FAILED, error: new Error('connect ECONNREFUSED') };
    const refusing: SpanExporter = {
      export: (_spans: ReadableSpan[], done: Done) => (held ? waiting.push(done) : done(refused)),
      shutdown: () => Promise.resolve(),
    };
    const t = tracing({ samplingRate: 1, exporter: undefined }, refusing);
    running = t.tracing;
    await running.start();
    for (let i = 0; i < 10_000; i++) trace.getTracer('t').startSpan(`s${i}`).end();
    const dropped = async (reason: string) => (await t.metrics.getSingleMetric('svc_tracing_spans_dropped_total')!.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
    // 4,096 queued, at most one batch of 512 handed to the exporter; the rest dropped.
    const queueFull = await dropped('queue_full');
    expect(queueFull).to.be.within(10_000 - 4_096 - 512, 10_000 - 4_096);
    held = false;
    for (const done of waiting.splice(0)) done(refused);
    await running.stop();
    running = undefined;
    // Every span is accounted for: dropped from the full queue, or refused by the collector.
    expect(queueFull + (await dropped('export_failed'))).to.equal(10_000);
  });
});
