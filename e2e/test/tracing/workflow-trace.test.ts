/**
 * A workflow as one trace in a real OpenTelemetry Collector: started over HTTP with the caller's traceparent, three
 * activities, a durable timer and a sub-workflow, run by a real `@dapr/durabletask-js` worker — the spans' parent/child
 * structure read back from the collector's file exporter; and the same across a `kill -9` of svcd while the workflow
 * waits on its timer (the spans made after the restart join the same trace under the same run).
 */
import { actorStore, callerContext, collectorForSuite, onlySpan, SPAN_KIND, SvcdProcess, tracingConfiguration, type ActorStore, type CollectedSpan } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { WorkerProcess, WorkerReports } from '../workflow/support/worker-process.js';

describe('a workflow as one trace in a real OpenTelemetry Collector', function () {
  this.timeout(120_000);
  const collector = collectorForSuite();
  let store: ActorStore;
  let svcd: SvcdProcess | undefined;
  let worker: WorkerProcess | undefined;
  const reports = new WorkerReports();

  const start = (resources: Record<string, string>, from?: SvcdProcess) =>
    SvcdProcess.start({ appId: store.appId, ...(from ? { dataDir: from.dataDir, resourcesPath: from.resourcesPath } : { resources }) });

  afterEach(async () => {
    await worker?.kill();
    await svcd?.dispose();
    await store?.cleanup();
  });

  /** The workflow's spans once the run is complete: the run's own span is exported when it ends. */
  async function workflowSpans(traceId: string, subInstance: string): Promise<CollectedSpan[]> {
    return collector().trace(traceId, (spans) => spans.filter((s) => s.name === 'orchestration||traced' || s.name === 'orchestration||echo').length === 2 && spans.some((s) => s.attributes['durabletask.task.instance_id'] === subInstance && s.name === 'orchestration||echo'));
  }

  function expectStructure(spans: CollectedSpan[], caller: { traceId: string; spanId: string }, instanceId: string): void {
    expect(new Set(spans.map((s) => s.traceId))).to.deep.equal(new Set([caller.traceId]));
    const create = onlySpan(spans, 'create_orchestration', (s) => s.name === 'create_orchestration||traced');
    const run = onlySpan(spans, 'the run', (s) => s.name === 'orchestration||traced');
    expect(run.parentSpanId).to.equal(create.spanId);
    expect(run.kind).to.equal(SPAN_KIND.server);
    expect(run.attributes['durabletask.task.instance_id']).to.equal(instanceId);
    expect(run.attributes['durabletask.runtime_status']).to.equal('COMPLETED');
    // The HTTP start is the caller's child; create_orchestration is under it (or straight under the caller).
    const chain = new Map(spans.map((s) => [s.spanId, s.parentSpanId]));
    let up = create.parentSpanId;
    while (up !== caller.spanId && chain.has(up)) up = chain.get(up)!;
    expect(up, 'create_orchestration is not under the caller').to.equal(caller.spanId);
    const activities = spans.filter((s) => s.name === 'activity||record');
    expect(activities.map((a) => a.attributes['durabletask.task.task_id']).sort()).to.have.length(3);
    for (const a of activities) expect(a.parentSpanId, a.name).to.equal(run.spanId);
    onlySpan(spans, "the run's timer", (s) => s.name === 'timer' && s.parentSpanId === run.spanId);
    const sub = onlySpan(spans, 'the sub-workflow', (s) => s.name === 'orchestration||echo');
    expect(sub.parentSpanId).to.equal(run.spanId);
    expect(sub.attributes['durabletask.task.instance_id']).to.equal(`${instanceId}-sub`);
    // echo's own 1 ms timer is the sub-workflow's child; nothing else hangs off either run.
    onlySpan(spans, "the sub-workflow's timer", (s) => s.name === 'timer' && s.parentSpanId === sub.spanId);
    expect(spans.filter((s) => s.parentSpanId === run.spanId).map((s) => s.name).sort()).to.deep.equal(['activity||record', 'activity||record', 'activity||record', 'orchestration||echo', 'timer']);
  }

  async function startTraced(on: SvcdProcess, instanceId: string, timerMs: number): Promise<{ traceId: string; spanId: string }> {
    const caller = callerContext();
    const res = await on.request('POST', `/v1.0/workflows/svc/traced/start?instanceID=${instanceId}`, JSON.stringify({ timerMs }), { 'content-type': 'application/json', traceparent: caller.traceparent });
    expect(res.status, await res.text()).to.equal(202);
    return caller;
  }

  async function waitCompleted(on: SvcdProcess, instanceId: string): Promise<void> {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      const body = (await (await on.request('GET', `/v1.0/workflows/svc/${instanceId}`)).json()) as { runtimeStatus: string };
      if (body.runtimeStatus === 'COMPLETED') return;
      expect(body.runtimeStatus).to.not.equal('FAILED');
    }
    throw new Error(`${instanceId} did not complete`);
  }

  it('3 activities, a timer and a sub-workflow under the run, the run under the starting call', async () => {
    store = actorStore('sqlite', 'wf-trace');
    svcd = await start({ ...store.resources, 'tracing.yaml': tracingConfiguration({ samplingRate: 1, endpoint: collector().httpEndpoint }) });
    worker = await WorkerProcess.start(svcd.grpcAddress, reports);
    const caller = await startTraced(svcd, 'traced-1', 500);
    await waitCompleted(svcd, 'traced-1');
    expectStructure(await workflowSpans(caller.traceId, 'traced-1-sub'), caller, 'traced-1');
  });

  it('the same trace across a kill -9 of svcd while the workflow waits on its timer', async () => {
    store = actorStore('sqlite', 'wf-trace-kill');
    const first = await start({ ...store.resources, 'tracing.yaml': tracingConfiguration({ samplingRate: 1, endpoint: collector().httpEndpoint }) });
    svcd = first;
    worker = await WorkerProcess.start(first.grpcAddress, reports);
    const caller = await startTraced(first, 'traced-2', 4000);
    for (let step = 1; step <= 3; step++) await reports.seen('activity-done', (m) => m.instanceId === 'traced-2' && m.step === step);
    // Spans still in svcd's export queue die with it: killed once the three activities' spans reached the collector
    // (the run now waits on its timer).
    await collector().trace(caller.traceId, (spans) => spans.filter((s) => s.name === 'activity||record').length === 3);
    await first.kill();
    await worker.kill();
    svcd = await start({}, first);
    worker = await WorkerProcess.start(svcd.grpcAddress, reports);
    await waitCompleted(svcd, 'traced-2');
    expectStructure(await workflowSpans(caller.traceId, 'traced-2-sub'), caller, 'traced-2');
  });
});
