/* eslint-disable @typescript-eslint/require-await -- the SDK runs only async generator functions as workflows */
/**
 * Workflow tracing through the real engine: a real OpenTelemetry SDK registered globally (in-memory exporter,
 * AsyncLocalStorage context, W3C propagators), the engine wired as svcd wires it on a SQLite store in this
 * process, and real `@dapr/durabletask-js` workers and raw Durable Task clients on its gRPC port. The spans'
 * names, kinds and parent/child structure are those docs/tracing-workflows.md documents.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { context, SpanKind, SpanStatusCode, trace, type SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { TaskHubGrpcClient, TaskHubGrpcWorker, type ActivityContext, type OrchestrationContext } from '@dapr/durabletask-js';
import type { TaskHubSidecarServiceClient } from '@svc/proto';
import { eventually, InMemoryTracing, InProcessRuntime, rawClient, RawWorker, removeTempFolder, tempFolder } from '../support/index.js';
import type { WorkflowInstance } from '../../src/workflow/engine.js';
import { instanceView } from '../../src/workflow/instance-view.js';

import { quietConsole, restoreConsole, SDK_STATUS } from './sdk-harness.js';

type Gen = AsyncGenerator<unknown, unknown, unknown>;

const double = (_ctx: ActivityContext, n: number) => n * 2;
const refuse = (_ctx: ActivityContext, why: string) => {
  throw new Error(`refused: ${why}`);
};

async function* tracedChild(ctx: OrchestrationContext, n: number): Gen {
  return yield ctx.callActivity(double, n);
}

/** Three activities (one fails), a timer, a raised event and a sub-workflow. */
async function* traced(ctx: OrchestrationContext, n: number): Gen {
  const a = (yield ctx.callActivity(double, n)) as number;
  const b = (yield ctx.callActivity(double, a)) as number;
  let refused = '';
  try {
    yield ctx.callActivity(refuse, 'on purpose');
  } catch (err) {
    refused = (err as Error).message;
  }
  yield ctx.createTimer(1);
  const approval = yield ctx.waitForExternalEvent('approval');
  const c = yield ctx.callSubOrchestrator(tracedChild, b);
  return { a, b, c, approval, refused };
}

/** Waits on a timer long enough for a restart in between. */
async function* slowTimer(ctx: OrchestrationContext, n: number): Gen {
  const a = (yield ctx.callActivity(double, n)) as number;
  yield ctx.createTimer(3);
  return yield ctx.callActivity(double, a);
}

/** Three runs of one instance (continue-as-new), then a failure. */
async function* generations(ctx: OrchestrationContext, n: number): Gen {
  yield ctx.callActivity(double, n);
  if (n < 3) {
    ctx.continueAsNew(n + 1, false);
    return undefined;
  }
  throw new Error('the last run fails');
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const callerSpan = (): SpanContext => ({ traceId: hex(16), spanId: hex(8), traceFlags: 1, isRemote: true });
const idOf = (s: ReadableSpan) => s.spanContext().spanId;
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

function start(client: TaskHubSidecarServiceClient, req: { instanceId: string; name: string; input?: string; traceParent?: string; traceState?: string }): Promise<void> {
  const parentTraceContext = req.traceParent ? { traceParent: req.traceParent, spanID: '', traceState: req.traceState ? { value: req.traceState } : null } : null;
  const input = req.input !== undefined ? { value: req.input } : null;
  return new Promise((resolve, reject) => client.StartInstance({ instanceId: req.instanceId, name: req.name, input, parentTraceContext }, (err) => (err ? reject(err) : resolve())));
}

describe('workflow tracing (in-process engine, SQLite store, real SDK worker)', function () {
  this.timeout(120_000);
  let tracing: InMemoryTracing | undefined;
  let dir: string;
  const closers: (() => Promise<void>)[] = [];

  beforeEach(() => {
    dir = tempFolder('svc-wf-trace-');
    quietConsole();
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    restoreConsole();
    await tracing?.uninstall();
    tracing = undefined;
    removeTempFolder(dir);
  });

  async function runtime(): Promise<InProcessRuntime> {
    const rt = await InProcessRuntime.start(dir);
    closers.push(() => rt.stop());
    return rt;
  }

  async function worker(rt: InProcessRuntime): Promise<TaskHubGrpcWorker> {
    const w = new TaskHubGrpcWorker(rt.grpcAddress);
    w.addOrchestrator(traced);
    w.addOrchestrator(tracedChild);
    w.addOrchestrator(slowTimer);
    w.addOrchestrator(generations);
    w.addActivity(double);
    w.addActivity(refuse);
    await w.start();
    closers.push(() => w.stop());
    return w;
  }

  function client(rt: InProcessRuntime): TaskHubGrpcClient {
    const c = new TaskHubGrpcClient(rt.grpcAddress);
    closers.push(() => c.stop());
    return c;
  }

  function spanNamed(name: string, spans = tracing?.spans() ?? []): ReadableSpan {
    const found = spans.filter((s) => s.name === name);
    expect(found, `one span named ${name}`).to.have.length(1);
    return found[0] as ReadableSpan;
  }

  it('continues the starting call’s trace: the run under its start, activities, timer, event and sub-workflow under the run', async () => {
    tracing = InMemoryTracing.install();
    const rt = await runtime();
    await worker(rt);
    const caller = callerSpan();
    const raiser = callerSpan();
    const raw = rawClient(rt.grpcAddress);
    closers.push(() => Promise.resolve(raw.close()));
    await start(raw, { instanceId: 'traced-1', name: 'traced', input: '3', traceParent: InMemoryTracing.traceparent(caller), traceState: 'vendor=abc' });
    // The raise as the API layers make it: inside the raising request's span.
    await context.with(trace.setSpanContext(context.active(), raiser), () => rt.engine.raiseEvent('traced-1', 'approval', '"yes"'));
    const state = await client(rt).waitForOrchestrationCompletion('traced-1', true, 60);
    expect(state?.runtimeStatus).to.equal(SDK_STATUS.COMPLETED);
    const output = JSON.parse(state?.serializedOutput ?? 'null') as { refused: string };
    expect(output).to.deep.include({ a: 6, b: 12, c: 24, approval: 'yes' });
    expect(output.refused).to.contain('refused: on purpose');

    await eventually('both runs’ spans', () => Promise.resolve(tracing?.spans().filter((s) => s.name.startsWith('orchestration||')).length === 2));
    const spans = tracing.spans();
    const create = spanNamed('create_orchestration||traced', spans);
    const run = spanNamed('orchestration||traced', spans);
    const child = spanNamed('orchestration||tracedChild', spans);
    const activities = spans.filter((s) => s.name.startsWith('activity||'));
    const timer = spanNamed('timer', spans);
    const event = spanNamed('orchestration_event||approval', spans);

    expect(spans, 'nothing else').to.have.length(9);
    expect(new Set(spans.map((s) => s.spanContext().traceId)), 'one trace: the caller’s').to.deep.equal(new Set([caller.traceId]));
    expect(create.kind).to.equal(SpanKind.CLIENT);
    expect(parentOf(create), 'the start is the caller’s child').to.equal(caller.spanId);
    expect(create.spanContext().traceState?.get('vendor'), 'tracestate travels').to.equal('abc');
    expect(run.kind).to.equal(SpanKind.SERVER);
    expect(parentOf(run)).to.equal(idOf(create));
    expect(run.attributes).to.include({ 'durabletask.type': 'orchestration', 'durabletask.task.name': 'traced', 'durabletask.task.instance_id': 'traced-1', 'durabletask.runtime_status': 'COMPLETED' });
    expect(run.status.code).to.equal(SpanStatusCode.UNSET);

    const underRun = activities.filter((s) => parentOf(s) === idOf(run));
    expect(underRun.map((s) => s.name)).to.deep.equal(['activity||double', 'activity||double', 'activity||refuse']);
    expect(underRun.map((s) => s.attributes['durabletask.task.task_id'])).to.deep.equal([1, 2, 3]); // the JS SDK numbers its actions from 1
    const failed = underRun[2] as ReadableSpan;
    expect(failed.status).to.deep.include({ code: SpanStatusCode.ERROR });
    expect(failed.status.message).to.contain('refused: on purpose');
    expect(failed.events.map((e) => e.name)).to.deep.equal(['exception']);
    for (const ok of underRun.slice(0, 2)) expect(ok.status.code).to.equal(SpanStatusCode.UNSET);

    expect(parentOf(timer)).to.equal(idOf(run));
    expect(timer.attributes).to.include({ 'durabletask.type': 'timer', 'durabletask.task.instance_id': 'traced-1', 'durabletask.task.task_id': 4 });
    expect(parentOf(event)).to.equal(idOf(run));
    expect(event.links.map((l) => l.context.spanId), 'linked to the raising call').to.deep.equal([raiser.spanId]);

    expect(parentOf(child), 'the sub-workflow’s run is under its parent’s run').to.equal(idOf(run));
    const childActivities = activities.filter((s) => parentOf(s) === idOf(child));
    expect(childActivities.map((s) => s.name)).to.deep.equal(['activity||double']);
    expect(childActivities[0]?.attributes['durabletask.task.instance_id']).to.equal(child.attributes['durabletask.task.instance_id']);

    const snapshot = await rt.engine.get('traced-1');
    expect(snapshot?.traceId, 'the instance says which trace it is in').to.equal(caller.traceId);
    expect(instanceView(snapshot as WorkflowInstance).properties['svc.workflow.trace_id'], 'as the HTTP API and the UI show it').to.equal(caller.traceId);
  });

  it('goes on in the same trace after a restart mid-workflow: spans made before and after share the run’s span', async () => {
    tracing = InMemoryTracing.install();
    const caller = callerSpan();
    let rt = await runtime();
    const w = await worker(rt);
    // Started as the HTTP and gRPC APIs start it: inside the request's span (its extracted traceparent).
    await context.with(trace.setSpanContext(context.active(), caller), () => rt.engine.start({ name: 'slowTimer', instanceId: 'restart-1', input: '5' }));
    await eventually('the timer is set', async () => (await rt.engine.history('restart-1'))?.some((e) => e.type === 'TimerCreated') === true);
    const before = tracing.spans().map((s) => s.name);
    expect(before).to.deep.equal(['create_orchestration||slowTimer', 'activity||double']);

    // Restart: the worker and every part of the engine stop; a new engine opens the same store.
    await w.stop();
    await rt.stop();
    closers.splice(0);
    rt = await runtime();
    await worker(rt);
    const state = await client(rt).waitForOrchestrationCompletion('restart-1', true, 60);
    expect(state?.runtimeStatus).to.equal(SDK_STATUS.COMPLETED);
    expect(state?.serializedOutput).to.equal('20');

    await eventually('the run’s span', () => Promise.resolve(tracing?.spans().some((s) => s.name === 'orchestration||slowTimer') === true));
    const spans = tracing.spans();
    expect(spans.map((s) => s.name)).to.deep.equal(['create_orchestration||slowTimer', 'activity||double', 'timer', 'activity||double', 'orchestration||slowTimer']);
    expect(new Set(spans.map((s) => s.spanContext().traceId))).to.deep.equal(new Set([caller.traceId]));
    const run = spanNamed('orchestration||slowTimer', spans);
    expect(parentOf(run)).to.equal(idOf(spanNamed('create_orchestration||slowTimer', spans)));
    for (const s of spans.slice(1, 4)) expect(parentOf(s), `${s.name} under the run`).to.equal(idOf(run));
    const [first, second] = spans.filter((s) => s.name === 'activity||double');
    expect(idOf(first as ReadableSpan)).to.not.equal(idOf(second as ReadableSpan));
  });

  it('ends each run’s span at continue-as-new and starts the next in the same trace; a failed run’s span is an error', async () => {
    tracing = InMemoryTracing.install();
    const rt = await runtime();
    await worker(rt);
    const caller = callerSpan();
    await context.with(trace.setSpanContext(context.active(), caller), () => rt.engine.start({ name: 'generations', instanceId: 'gen-1', input: '1' }));
    const state = await client(rt).waitForOrchestrationCompletion('gen-1', true, 60);
    expect(state?.runtimeStatus).to.equal(SDK_STATUS.FAILED);
    await eventually('three runs’ spans', () => Promise.resolve(tracing?.spans().filter((s) => s.name === 'orchestration||generations').length === 3));
    const spans = tracing.spans();
    const create = spanNamed('create_orchestration||generations', spans);
    const runs = spans.filter((s) => s.name === 'orchestration||generations');
    expect(runs.map((r) => r.attributes['durabletask.runtime_status'])).to.deep.equal(['CONTINUED_AS_NEW', 'CONTINUED_AS_NEW', 'FAILED']);
    expect(new Set(runs.map(idOf)).size, 'a span per run').to.equal(3);
    for (const r of runs) expect(parentOf(r), 'every run under the start').to.equal(idOf(create));
    expect(runs.map((r) => r.status.code)).to.deep.equal([SpanStatusCode.UNSET, SpanStatusCode.UNSET, SpanStatusCode.ERROR]);
    expect(runs[2]?.status.message).to.contain('the last run fails');
    const activities = spans.filter((s) => s.name === 'activity||double');
    expect(activities.map(parentOf), 'each run’s activity under that run').to.deep.equal(runs.map(idOf));
    expect(new Set(spans.map((s) => s.spanContext().traceId))).to.deep.equal(new Set([caller.traceId]));
  });

  it('hands the run’s and each activity’s context to the worker in its work items (ExecutionStarted, ActivityRequest)', async () => {
    tracing = InMemoryTracing.install();
    const rt = await runtime();
    const w = new RawWorker(rt.grpcAddress);
    closers.push(() => Promise.resolve(w.close()));
    w.connect();
    const caller = callerSpan();
    await start(w.client, { instanceId: 'wire-1', name: 'wired', traceParent: InMemoryTracing.traceparent(caller) });
    const create = spanNamed('create_orchestration||wired');

    const first = await w.nextItem(1);
    const started = first.orchestratorRequest?.newEvents.find((e) => e.executionStarted)?.executionStarted;
    expect(started?.parentTraceContext?.traceParent, 'the start’s span').to.equal(`00-${caller.traceId}-${idOf(create)}-01`);
    const runSpanId = started?.orchestrationSpanID?.value ?? '';
    expect(runSpanId).to.match(/^[0-9a-f]{16}$/);
    expect(await w.completeOrchestration('wire-1', [{ id: 0, scheduleTask: { name: 'act', input: { value: '1' } } }], first.completionToken)).to.equal(null);

    const activity = (await w.nextItem(2)).activityRequest;
    const carried = activity?.parentTraceContext?.traceParent ?? '';
    expect(carried).to.match(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));
    expect(await w.completeActivity('wire-1', 0, '2', (await w.nextItem(2)).completionToken)).to.equal(null);
    const third = await w.nextItem(3);
    const replayed = third.orchestratorRequest?.pastEvents.find((e) => e.executionStarted)?.executionStarted;
    expect(replayed?.orchestrationSpanID?.value, 'the replayed history keeps the run’s span id').to.equal(runSpanId);
    const done = { id: 1, completeOrchestration: { orchestrationStatus: 'ORCHESTRATION_STATUS_COMPLETED' as const, result: { value: '2' } } };
    expect(await w.completeOrchestration('wire-1', [done], third.completionToken)).to.equal(null);

    await eventually('the run’s span', () => Promise.resolve(tracing?.spans().some((s) => s.name === 'orchestration||wired') === true));
    const run = spanNamed('orchestration||wired');
    const act = spanNamed('activity||act');
    expect(idOf(run), 'the run’s span has the id its work items named').to.equal(runSpanId);
    expect(carried, 'the worker got the activity span’s own context').to.equal(`00-${caller.traceId}-${idOf(act)}-01`);
    expect(parentOf(act)).to.equal(runSpanId);
  });

  it('records and carries nothing when no tracer provider is registered', async () => {
    const rt = await runtime();
    const w = new RawWorker(rt.grpcAddress);
    closers.push(() => Promise.resolve(w.close()));
    w.connect();
    await start(w.client, { instanceId: 'untraced-1', name: 'plain' });
    const first = await w.nextItem(1);
    const started = first.orchestratorRequest?.newEvents.find((e) => e.executionStarted)?.executionStarted;
    expect(started?.parentTraceContext ?? null).to.equal(null);
    expect(started?.orchestrationSpanID ?? null).to.equal(null);
    expect(await w.completeOrchestration('untraced-1', [{ id: 0, scheduleTask: { name: 'act' } }], first.completionToken)).to.equal(null);
    expect((await w.nextItem(2)).activityRequest?.parentTraceContext ?? null).to.equal(null);
    expect((await rt.engine.get('untraced-1'))?.traceId).to.equal(undefined);
    expect((await rt.engine.history('untraced-1'))?.find((e) => e.type === 'ExecutionStarted')).to.not.have.property('trace');
  });
});
