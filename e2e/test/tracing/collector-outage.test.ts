/**
 * A collector that goes away and comes back, with real svcd processes exporting to a real OpenTelemetry Collector
 * over OTLP/HTTP and OTLP/gRPC: while it is away every API call still succeeds, the spans are dropped and counted
 * (`svc_tracing_spans_dropped_total`), svcd says so once; once it is back the spans of new requests arrive again.
 * How long calls take meanwhile is measured in bench/, not asserted here.
 */
import { callerContext, componentYaml, eventually, OtelCollector, SvcdProcess, tracingConfiguration } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';

async function droppedSpans(svcd: SvcdProcess): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${svcd.ports.metrics}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('svc_tracing_spans_dropped_total{reason="export_failed"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('tracing: the collector goes away and comes back (real svcd, real collector)', function () {
  this.timeout(120_000);
  let collector: OtelCollector;
  const svcds: { protocol: 'http' | 'grpc'; svcd: SvcdProcess }[] = [];

  before(async () => {
    collector = await OtelCollector.start();
    for (const protocol of ['http', 'grpc'] as const) {
      const endpoint = protocol === 'http' ? collector.httpEndpoint : collector.grpcEndpoint;
      const svcd = await SvcdProcess.start({
        appId: `outage-${protocol}-${randomUUID().slice(0, 8)}`,
        resources: { 'store.yaml': componentYaml('store', 'state.in-memory'), 'config.yaml': tracingConfiguration({ samplingRate: 1, endpoint, protocol }) },
      });
      svcds.push({ protocol, svcd });
    }
  });
  after(async () => {
    await Promise.all(svcds.map((s) => s.svcd.dispose()));
    await collector?.stop();
  });

  const save = async (svcd: SvcdProcess, traceparent: string, key: string): Promise<number> =>
    (await svcd.request('POST', '/v1.0/state/store', [{ key, value: key }], { traceparent })).status;

  it('API calls succeed while it is away (spans dropped and counted), and spans arrive again once it is back', async () => {
    for (const { svcd } of svcds) {
      const before = callerContext();
      expect(await save(svcd, before.traceparent, 'before')).to.equal(204);
      await collector.trace(before.traceId, (s) => s.length >= 2);
    }

    await collector.pause();
    for (const { svcd } of svcds) {
      const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => save(svcd, callerContext().traceparent, `away-${i}`)));
      expect(statuses.filter((s) => s !== 204), 'calls that failed while the collector was away').to.deep.equal([]);
    }
    for (const { protocol, svcd } of svcds) {
      await eventually(`${protocol}: svcd counts the spans it could not export`, async () => (await droppedSpans(svcd)) > 0, 30_000);
      expect(svcd.output.match(/span export failed/g), protocol).to.have.length(1);
    }

    await collector.resume();
    for (const { protocol, svcd } of svcds) {
      // The first batches after the return may still go to the exporter's closed connection: new requests are
      // tried until one arrives.
      let arrived = false;
      for (let i = 0; i < 40 && !arrived; i++) {
        const after = callerContext();
        expect(await save(svcd, after.traceparent, `after-${i}`)).to.equal(204);
        arrived = await collector.trace(after.traceId, (s) => s.length >= 2, 1_500).then(() => true, () => false);
      }
      expect(arrived, `${protocol}: spans arrive once the collector is back`).to.equal(true);
      // Said once the collector's answer is back at svcd, which may be after the collector wrote the spans down.
      await eventually(`${protocol}: svcd says span export works again`, () => Promise.resolve(svcd.output.includes('span export works again')), 10_000);
    }
  });
});
