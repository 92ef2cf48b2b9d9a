/**
 * `GET /v1.0/workflows/svc/<id>/waiting` on a real svcd, with a raw gRPC worker answering as Dapr's newer SDKs do
 * (named activity calls, timers with origins): what the instance waits for, and which worker holds its activity.
 */
import { expect } from 'chai';
import type { OrchestratorAction } from '@svc/proto';
import { RawWorker, eventually } from '../support/index.js';
import type { WaitingView } from '../../src/workflow/waiting-view.js';
import { WorkflowHarness } from './sdk-harness.js';

const FOR_EVER = { seconds: '253402300799', nanos: 999_999_999 };

describe('workflow waiting API (real svcd, raw worker)', function () {
  this.timeout(60_000);
  let h: WorkflowHarness;
  let w: RawWorker;
  before(async () => {
    h = await WorkflowHarness.start();
    w = new RawWorker(h.svcd.grpcAddress);
    w.connect();
  });
  after(async () => {
    w.close();
    await h.close();
  });

  const waiting = async (id: string) => (await (await h.svcd.request('GET', `/v1.0/workflows/svc/${id}/waiting`)).json()) as WaitingView;

  /** Starts `id` over HTTP and answers its first batch with `actions`. */
  async function startAndAnswer(id: string, actions: OrchestratorAction[]): Promise<void> {
    expect((await h.svcd.request('POST', `/v1.0/workflows/svc/named/start?instanceID=${id}`)).status).to.equal(202);
    const item = await w.orchestrationItem(id);
    expect(await w.completeOrchestration(id, actions, item.completionToken)).to.equal(null);
  }

  it('names the activity with its worker, the timers with their purpose, the awaited event and the child', async () => {
    const inAnHour = { seconds: String(Math.floor(Date.now() / 1000) + 3600), nanos: 0 };
    await startAndAnswer('wait-1', [
      { id: 0, scheduleTask: { name: 'charge', taskExecutionId: 'call-1' } },
      { id: 1, createTimer: { fireAt: FOR_EVER, name: 'approval', externalEvent: { name: 'approval' } } },
      { id: 2, createTimer: { fireAt: inAnHour, name: 'nap', createTimer: {} } },
      { id: 3, createSubOrchestration: { instanceId: 'wait-1-child', name: 'child' } },
    ]);
    // The child waits too (for nothing it names): answered, so the worker is not found unresponsive meanwhile.
    expect(await w.completeOrchestration('wait-1-child', [], (await w.orchestrationItem('wait-1-child')).completionToken)).to.equal(null);
    await eventually('the activity is out with the worker', async () => (await waiting('wait-1')).activities[0]?.state === 'with-worker');
    const view = await waiting('wait-1');
    const meta = (await (await h.svcd.request('GET', '/v1.0/metadata')).json()) as { workflows: { workers: { id: number; peer: string }[] } };
    expect(meta.workflows.workers, 'the raw worker is the one connected').to.have.length(1);
    expect(view).to.include({ instanceID: 'wait-1', runtimeStatus: 'RUNNING', unnamedEvent: false });
    expect(view.activities).to.have.length(1);
    expect(view.activities[0]).to.deep.include({ taskId: 0, name: 'charge', attempt: 1, state: 'with-worker', worker: meta.workflows.workers[0] });
    expect(view.timers.map((t) => [t.timerId, t.purpose])).to.deep.equal([[2, { kind: 'timer', name: 'nap' }]]);
    expect(view.timers[0]?.dueInMs).to.be.within(3_500_000, 3_600_000);
    expect(view.events).to.have.length(1);
    expect(view.events[0]).to.include({ name: 'approval' }).and.not.have.property('timeoutAt');
    expect(view.children.map((c) => [c.instanceId, c.name])).to.deep.equal([['wait-1-child', 'child']]);

    // The worker's connection breaks: the activity goes back to the queue.
    w.dropStream();
    await eventually('queued again', async () => (await waiting('wait-1')).activities[0]?.state === 'queued');
    expect((await waiting('wait-1')).activities[0]).to.not.have.property('worker');
    w.connect();
  });

  it('names the worker running its turn; after it, with nothing pending, an event its SDK did not name', async () => {
    expect((await h.svcd.request('POST', '/v1.0/workflows/svc/named/start?instanceID=wait-2')).status).to.equal(202);
    const item = await w.orchestrationItem('wait-2');
    const meta = (await (await h.svcd.request('GET', '/v1.0/metadata')).json()) as { workflows: { workers: { id: number; peer: string }[] } };
    expect(await waiting('wait-2')).to.deep.include({ runtimeStatus: 'PENDING', turn: { state: 'with-worker', worker: meta.workflows.workers[0] }, unnamedEvent: false });
    expect(await w.completeOrchestration('wait-2', [], item.completionToken)).to.equal(null);
    expect(await waiting('wait-2')).to.deep.equal({
      instanceID: 'wait-2',
      runtimeStatus: 'RUNNING',
      activities: [],
      timers: [],
      events: [],
      children: [],
      totals: { activities: 0, timers: 0, events: 0, children: 0 },
      unnamedEvent: true,
    });
  });

  it('answers 404 ERR_INSTANCE_ID_NOT_FOUND for an unknown instance, as the other instance routes do', async () => {
    const res = await h.svcd.request('GET', '/v1.0/workflows/svc/nobody/waiting');
    expect(res.status).to.equal(404);
    expect(((await res.json()) as { errorCode: string }).errorCode).to.equal('ERR_INSTANCE_ID_NOT_FOUND');
  });
});
