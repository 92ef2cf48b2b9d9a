/* eslint-disable @typescript-eslint/require-await -- the SDK runs only async generators as workflows, and a workflow must never await anything itself (replay must be deterministic) */
import { expect } from 'chai';
import {
  DaprClient,
  DaprWorkflowClient,
  LogLevel,
  WorkflowRuntime,
  WorkflowRuntimeStatus,
  type WorkflowActivityContext,
  type WorkflowContext,
} from '@dapr/dapr';
import type { Task } from '@dapr/dapr/workflow/internal/durabletask/task/task.js';
import { actorStore, SvcdProcess, type ActorStore } from '@svc/runtime/test-support';
import './support/quiet-sdk.js';

const TOKEN = 'e2e-dapr-token';
const logger = { level: LogLevel.Error };

/** A workflow with two activities, a timer, an approval event and a child workflow, in `@dapr/dapr`'s API. */
async function* order(ctx: WorkflowContext, input: { name: string }): AsyncGenerator<Task<unknown>, unknown, unknown> {
  const greetings = [yield ctx.callActivity('greet', input.name), yield ctx.callActivity('greet', 'again')];
  yield ctx.createTimer(1);
  ctx.setCustomStatus('awaiting approval');
  const approval: unknown = yield ctx.waitForExternalEvent('approve');
  const child: unknown = yield ctx.callChildWorkflow('double', 21, `${ctx.getWorkflowInstanceId()}-child`);
  return { greetings, approval, child };
}

async function* double(ctx: WorkflowContext, n: number): AsyncGenerator<Task<unknown>, unknown, unknown> {
  return yield ctx.callActivity('times2', n);
}

async function* idle(ctx: WorkflowContext): AsyncGenerator<Task<unknown>, unknown, unknown> {
  return yield ctx.waitForExternalEvent('never');
}

describe('@dapr/dapr workflow classes and DaprClient against svcd (API token on)', function () {
  this.timeout(60_000);
  let store: ActorStore;
  let svcd: SvcdProcess;
  let runtime: WorkflowRuntime;
  let wf: DaprWorkflowClient;
  let dapr: DaprClient;

  before(async () => {
    store = actorStore('sqlite', 'wf-e2e');
    svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, env: { SVC_API_TOKEN: TOKEN } });
    const grpc = { daprHost: '127.0.0.1', daprPort: String(svcd.ports.grpc), daprApiToken: TOKEN, logger };
    runtime = new WorkflowRuntime(grpc)
      .registerWorkflowWithName('order', order)
      .registerWorkflowWithName('double', double)
      .registerWorkflowWithName('idle', idle)
      .registerActivityWithName('greet', (_ctx: WorkflowActivityContext, name: string) => `hello ${name}`)
      .registerActivityWithName('times2', (_ctx: WorkflowActivityContext, n: number) => n * 2);
    await runtime.start();
    wf = new DaprWorkflowClient(grpc);
    dapr = new DaprClient({ daprHost: '127.0.0.1', daprPort: String(svcd.ports.http), daprApiToken: TOKEN, logger });
    await dapr.start();
  });

  after(async () => {
    await runtime?.stop();
    await wf?.stop();
    await dapr?.stop();
    await svcd?.dispose();
    await store?.cleanup();
  });

  it('runs activities, a timer, an event and a child workflow through WorkflowRuntime and DaprWorkflowClient', async () => {
    const id = await wf.scheduleNewWorkflow('order', { name: 'svc' }, 'dapr-order-1');
    expect(id).to.equal('dapr-order-1');
    const started = await wf.waitForWorkflowStart(id, true, 30);
    expect(started?.runtimeStatus).to.equal(WorkflowRuntimeStatus.RUNNING);
    expect(started?.name).to.equal('order');
    expect(started?.serializedInput).to.equal('{"name":"svc"}');
    await wf.raiseEvent(id, 'approve', { by: 'alice' });
    const done = await wf.waitForWorkflowCompletion(id, true, 30);
    expect(done?.runtimeStatus).to.equal(WorkflowRuntimeStatus.COMPLETED);
    expect(JSON.parse(done!.serializedOutput!)).to.deep.equal({ greetings: ['hello svc', 'hello again'], approval: { by: 'alice' }, child: 42 });
    expect(done?.customStatus).to.equal('awaiting approval');
    const state = await wf.getWorkflowState(id, true);
    expect(state?.runtimeStatus).to.equal(WorkflowRuntimeStatus.COMPLETED);
    expect(await wf.purgeWorkflow(id)).to.equal(true);
    expect(await wf.getWorkflowState(id, false)).to.equal(undefined);
  });

  it('suspends, resumes and terminates through DaprWorkflowClient', async () => {
    const id = await wf.scheduleNewWorkflow('idle', undefined, 'dapr-idle-1');
    await wf.waitForWorkflowStart(id, false, 30);
    await wf.suspendWorkflow(id);
    expect((await wf.getWorkflowState(id, false))?.runtimeStatus).to.equal(WorkflowRuntimeStatus.SUSPENDED);
    await wf.resumeWorkflow(id);
    expect((await wf.getWorkflowState(id, false))?.runtimeStatus).to.equal(WorkflowRuntimeStatus.RUNNING);
    await wf.terminateWorkflow(id, 'stopped by test');
    const done = await wf.waitForWorkflowCompletion(id, true, 30);
    expect(done?.runtimeStatus).to.equal(WorkflowRuntimeStatus.TERMINATED);
    expect(done?.serializedOutput).to.equal('"stopped by test"');
  });

  it('drives every DaprClient HTTP workflow call (/v1.0-beta1/workflows/dapr/...)', async () => {
    const id = await dapr.workflow.start('order', { name: 'http' }, 'dapr-http-1');
    expect(id).to.equal('dapr-http-1');
    await wf.waitForWorkflowStart(id, false, 30);
    const running = await dapr.workflow.get(id);
    expect(running).to.include({ instanceID: id, workflowName: 'order' });
    expect(running.runtimeStatus).to.equal('RUNNING');
    expect(running.createdAt).to.be.instanceOf(Date);
    // DaprClient calls the `dapr` alias, which names the properties as Dapr clients read them.
    expect(running.properties['dapr.workflow.input']).to.equal('{"name":"http"}');

    await dapr.workflow.raise(id, 'approve', { by: 'bob' });
    await wf.waitForWorkflowCompletion(id, false, 30);
    const done = await dapr.workflow.get(id);
    expect(done.runtimeStatus).to.equal('COMPLETED');
    expect(JSON.parse(done.properties['dapr.workflow.output'] as string)).to.deep.include({ approval: { by: 'bob' }, child: 42 });
    await dapr.workflow.purge(id);
    await expectRejected(dapr.workflow.get(id), 'ERR_INSTANCE_ID_NOT_FOUND');
    await expectRejected(dapr.workflow.get(`${id}-child`), 'ERR_INSTANCE_ID_NOT_FOUND'); // purged with its parent

    const idleId = await dapr.workflow.start('idle', undefined, 'dapr-http-idle');
    await wf.waitForWorkflowStart(idleId, false, 30);
    await dapr.workflow.pause(idleId);
    await dapr.workflow.resume(idleId);
    await dapr.workflow.terminate(idleId);
    expect((await wf.waitForWorkflowCompletion(idleId, false, 30))?.runtimeStatus).to.equal(WorkflowRuntimeStatus.TERMINATED);
    expect((await dapr.workflow.get(idleId)).runtimeStatus).to.equal('TERMINATED');
  });

  it('refuses calls without the API token', async () => {
    const res = await svcd.request('GET', '/v1.0-beta1/workflows/dapr/dapr-idle-1');
    expect(res.status).to.equal(401);
    const anonymous = new DaprWorkflowClient({ daprHost: '127.0.0.1', daprPort: String(svcd.ports.grpc), logger });
    try {
      await expectRejected(anonymous.getWorkflowState('dapr-idle-1', false), 'UNAUTHENTICATED');
    } finally {
      await anonymous.stop();
    }
  });
});

async function expectRejected(promise: Promise<unknown>, text: string): Promise<void> {
  let error: unknown;
  try {
    await promise;
  } catch (err) {
    error = err;
  }
  expect(error, 'expected a rejection').to.be.instanceOf(Error);
  expect(String((error as Error).message)).to.include(text);
}
