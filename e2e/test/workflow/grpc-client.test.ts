import { expect } from 'chai';
import type { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { OrchestrationStatus } from '@dapr/durabletask-js/orchestration/enum/orchestration-status.enum.js';
import { harnessPerSuite, type WorkflowHarness } from './support/harness.js';

describe('Durable Task client calls of @dapr/durabletask-js against svcd', function () {
  this.timeout(60_000);
  let h: WorkflowHarness;
  let client: TaskHubGrpcClient;

  harnessPerSuite({ store: 'sqlite' }, (started) => {
    h = started;
    client = h.client();
  });

  it('StartInstance, WaitForInstanceStart, GetInstance, RaiseEvent, WaitForInstanceCompletion, PurgeInstances', async () => {
    const id = await client.scheduleNewOrchestration('approval', { amount: 10 }, 'grpc-approval');
    expect(id).to.equal('grpc-approval');
    const started = await client.waitForOrchestrationStart(id, true, 30);
    expect(started?.runtimeStatus).to.equal(OrchestrationStatus.RUNNING);
    const state = await client.getOrchestrationState(id, true);
    expect(state).to.include({ instanceId: id, name: 'approval', serializedInput: '{"amount":10}', serializedCustomStatus: 'waiting-for-approval' });
    expect(state?.createdAt.getTime()).to.be.at.most(state!.lastUpdatedAt.getTime());

    await client.raiseOrchestrationEvent(id, 'Approval', { approved: true });
    const done = await client.waitForOrchestrationCompletion(id, true, 30);
    expect(done?.runtimeStatus).to.equal(OrchestrationStatus.COMPLETED);
    expect(JSON.parse(done!.serializedOutput!)).to.deep.equal({ decision: { approved: true } });
    // Seen over HTTP the same way.
    expect((await h.get(id)).runtimeStatus).to.equal('COMPLETED');

    expect((await client.purgeOrchestration(id))?.deletedInstanceCount).to.equal(1);
    expect(await client.getOrchestrationState(id)).to.equal(undefined);
    expect((await h.request('GET', `/v1.0/workflows/svc/${id}`)).status).to.equal(404);
  });

  it('SuspendInstance and ResumeInstance return once the status changed; TerminateInstance records the output', async () => {
    const id = await client.scheduleNewOrchestration('approval', undefined, 'grpc-suspend');
    await client.waitForOrchestrationStart(id, false, 30);
    await client.suspendOrchestration(id);
    expect((await client.getOrchestrationState(id, false))?.runtimeStatus).to.equal(OrchestrationStatus.SUSPENDED);
    expect((await h.get(id)).runtimeStatus).to.equal('SUSPENDED');
    await client.resumeOrchestration(id);
    expect((await client.getOrchestrationState(id, false))?.runtimeStatus).to.equal(OrchestrationStatus.RUNNING);
    await client.terminateOrchestration(id, { reason: 'test' });
    const done = await client.waitForOrchestrationCompletion(id, true, 30);
    expect(done?.runtimeStatus).to.equal(OrchestrationStatus.TERMINATED);
    expect(done?.serializedOutput).to.equal('{"reason":"test"}');
  });

  it('GetInstance of an unknown instance answers "does not exist", not an error', async () => {
    expect(await client.getOrchestrationState('grpc-never')).to.equal(undefined);
  });

  it('a failing activity fails the workflow with failure details', async () => {
    const id = await client.scheduleNewOrchestration('failing', undefined, 'grpc-failing');
    const done = await client.waitForOrchestrationCompletion(id, true, 30);
    expect(done?.runtimeStatus).to.equal(OrchestrationStatus.FAILED);
    expect(done?.failureDetails?.message).to.include('kaboom');
  });

  it('refuses PurgeInstances of a running instance and keeps it', async () => {
    const id = await client.scheduleNewOrchestration('approval', undefined, 'grpc-purge-live');
    await client.waitForOrchestrationStart(id, false, 30);
    let error: unknown;
    try {
      await client.purgeOrchestration(id);
    } catch (err) {
      error = err;
    }
    expect(error, 'purge of a running instance must fail').to.be.instanceOf(Error);
    expect((await client.getOrchestrationState(id))?.runtimeStatus).to.equal(OrchestrationStatus.RUNNING);
    await client.terminateOrchestration(id);
  });

  it('StartInstance with a scheduled start keeps the instance PENDING until then', async () => {
    const at = new Date(Date.now() + 1500);
    const id = await client.scheduleNewOrchestration('echo', 'later', 'grpc-scheduled', at);
    expect((await client.getOrchestrationState(id))?.runtimeStatus).to.equal(OrchestrationStatus.PENDING);
    const done = await client.waitForOrchestrationCompletion(id, true, 30);
    expect(done?.runtimeStatus).to.equal(OrchestrationStatus.COMPLETED);
    expect(done!.createdAt.getTime() <= at.getTime()).to.equal(true);
  });
});
