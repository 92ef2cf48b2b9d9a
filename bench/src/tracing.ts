/**
 * What tracing costs on the state API: requests/s, p50/p99 and svcd's CPU per request (from /proc) of GET and
 * save on a Redis store at 64 connections, with tracing off (no `spec.tracing`), at sampling rate 0 (contexts made
 * and carried, nothing exported), at rate 1 exporting every span to a real OpenTelemetry Collector over OTLP/HTTP,
 * and at rate 1 with the collector away (every export fails; the spans are dropped and counted). Every request
 * carries a sampled caller `traceparent`, as a traced app's would, but in the row "rate 0, callers untraced" (no
 * `traceparent`: svcd's own sampling decides, and at rate 0 makes only non-recording spans). The svcd run side by
 * side and are measured in turn, round after round, so a noisy neighbour colours them alike; each figure is the
 * median of the rounds.
 * Then workflows: five sequential activities through the same bench worker, 50 in flight, on a SQLite actor store, with
 * tracing off, at rate 0 and at rate 1 (every workflow a trace: its run, activities and the gRPC calls), in
 * interleaved rounds: workflows/s, p99 and svcd's CPU ms per workflow.
 * Run: `npm run build && bash scripts/ensure-collector.sh && node bench/dist/src/tracing.js` (Redis must be up).
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { componentYaml, freePort, OtelCollector, SvcdProcess, TEST_REDIS_HOST, tracingConfiguration } from '@svc/runtime/test-support';
import { benchSidecar, printStateTable, type StateBenchRow } from './state.js';
import { closedLoop, cpuMs, startWorker } from './workflow-loop.js';

const CALLER = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function resources(configuration?: string): Record<string, string> {
  const store = componentYaml('store', 'state.redis', { redisHost: TEST_REDIS_HOST });
  return { 'store.yaml': store, ...(configuration ? { 'config.yaml': configuration } : {}) };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One row per target and operation: the median of each figure over the rounds, failures summed. */
function medians(rows: readonly StateBenchRow[]): StateBenchRow[] {
  const groups = new Map<string, StateBenchRow[]>();
  for (const r of rows) groups.set(`${r.target}\n${r.operation}`, [...(groups.get(`${r.target}\n${r.operation}`) ?? []), r]);
  return [...groups.values()].map((g) => ({
    ...g[0]!,
    requestsPerSec: median(g.map((r) => r.requestsPerSec)),
    p50Ms: median(g.map((r) => r.p50Ms)),
    p99Ms: median(g.map((r) => r.p99Ms)),
    cpuUsPerRequest: median(g.map((r) => r.cpuUsPerRequest)),
    failures: g.reduce((n, r) => n + r.failures, 0),
  }));
}

export async function runTracingBench(durationSec = 5): Promise<void> {
  const collector = await OtelCollector.start();
  const nobody = `127.0.0.1:${await freePort()}`;
  const traced = { traceparent: CALLER };
  const targets = [
    { label: 'tracing off', resources: resources(), headers: traced },
    { label: 'rate 0, callers untraced', resources: resources(tracingConfiguration({ samplingRate: 0, endpoint: collector.httpEndpoint })), headers: {} },
    { label: 'rate 0', resources: resources(tracingConfiguration({ samplingRate: 0, endpoint: collector.httpEndpoint })), headers: traced },
    { label: 'rate 1', resources: resources(tracingConfiguration({ samplingRate: 1, endpoint: collector.httpEndpoint })), headers: traced },
    { label: 'rate 1, collector away', resources: resources(tracingConfiguration({ samplingRate: 1, endpoint: nobody })), headers: traced },
  ];
  console.log(`state API over HTTP on Redis, 64 connections, requests with a sampled caller traceparent (but where the row says untraced): autocannon, ${durationSec} s per row, ${ROUNDS} rounds (medians)`);
  const running = await Promise.all(targets.map(async (t) => ({ label: t.label, headers: t.headers, svcd: await SvcdProcess.start({ appId: `bench-tr-${randomBytes(3).toString('hex')}`, resources: t.resources, args: ['--log-level', 'warn'] }) })));
  try {
    const rows: StateBenchRow[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const { label, headers, svcd } of running) {
        rows.push(...(await benchSidecar({ label, url: svcd.httpUrl, pid: svcd.child.pid!, store: 'store' }, { durationSec, connections: [64], headers })));
      }
    }
    printStateTable(medians(rows));
    await new Promise((r) => setTimeout(r, 2_000)); // the last batches leave within a second
    // Read before the collector stops (its file goes with it).
    console.log(`spans the collector received: ${await collector.countSpans()}`);
  } finally {
    await Promise.all(running.map((r) => r.svcd.dispose()));
    await collector.stop();
  }
}

const WORKFLOWS = Number(process.env.BENCH_TRACING_WORKFLOWS ?? 500);
/** The durabletask-js client prints a line per start and per wait; the table is what this bench prints. */
const SDK_CHATTER = /^(Starting new \S+ instance|Waiting \d+ seconds for instance|Instance \S+ completed)/;

/** Five sequential activities, 50 in flight, with tracing off, at rate 0 and at rate 1: interleaved rounds, medians. */
export async function runWorkflowTracingBench(): Promise<void> {
  const collector = await OtelCollector.start();
  const actorStore = componentYaml('wfstore', 'state.sqlite', { actorStateStore: 'true' });
  const targets = [
    { label: 'tracing off', configuration: undefined },
    { label: 'rate 0', configuration: tracingConfiguration({ samplingRate: 0, endpoint: collector.httpEndpoint }) },
    { label: 'rate 1', configuration: tracingConfiguration({ samplingRate: 1, endpoint: collector.httpEndpoint }) },
  ];
  const running = await Promise.all(
    targets.map(async (t) => {
      const svcd = await SvcdProcess.start({ appId: `bench-wftr-${randomBytes(3).toString('hex')}`, resources: { 'store.yaml': actorStore, ...(t.configuration ? { 'config.yaml': t.configuration } : {}) }, args: ['--log-level', 'warn'] });
      return { label: t.label, svcd, worker: await startWorker(svcd.grpcAddress), client: new TaskHubGrpcClient(svcd.grpcAddress) };
    }),
  );
  const cells = new Map<string, { perSecond: number; p99: number; cpuMsPerWorkflow: number }[]>();
  const print = console.log.bind(console);
  console.log = (...args: unknown[]) => void (typeof args[0] === 'string' && SDK_CHATTER.test(args[0]) ? undefined : print(...args));
  try {
    for (const r of running) await closedLoop([r.client], 'sequence', 'warm', 100, 50); // unmeasured: the JIT
    for (let round = 0; round < ROUNDS; round++) {
      for (const r of running) {
        const cpu0 = cpuMs(r.svcd.child.pid!);
        const cell = await closedLoop([r.client], 'sequence', `r${round}`, WORKFLOWS, 50);
        if (cell.failed > 0) throw new Error(`${r.label}: ${cell.failed} workflows did not complete`);
        cells.set(r.label, [...(cells.get(r.label) ?? []), { perSecond: cell.perSecond, p99: cell.p99, cpuMsPerWorkflow: (cpuMs(r.svcd.child.pid!) - cpu0) / WORKFLOWS }]);
      }
    }
    console.log(`\nworkflows: 5 sequential activities, 50 in flight, ${WORKFLOWS} per row, SQLite actor store, the bench worker; ${ROUNDS} rounds (medians)`);
    console.log('| tracing | workflows/s | p99 ms | svcd CPU ms/workflow |');
    console.log('|---|---:|---:|---:|');
    for (const [label, rows] of cells) {
      console.log(`| ${label} | ${median(rows.map((c) => c.perSecond)).toFixed(0)} | ${median(rows.map((c) => c.p99)).toFixed(0)} | ${median(rows.map((c) => c.cpuMsPerWorkflow)).toFixed(2)} |`);
    }
    await new Promise((r) => setTimeout(r, 2_000));
    console.log(`spans the collector received: ${await collector.countSpans()}`);
  } finally {
    console.log = print;
    for (const r of running) {
      await r.client.stop();
      r.worker.kill();
    }
    await Promise.all(running.map((r) => r.svcd.dispose()));
    await collector.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runTracingBench();
  await runWorkflowTracingBench();
}
