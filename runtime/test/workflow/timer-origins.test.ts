/**
 * Timers as Dapr's newer SDKs (Go, Python, Java, .NET) create them: with a name and an origin, and an indefinite
 * wait for an event as a timer due at 9999-12-31T23:59:59.999999999Z. A raw gRPC worker sends exactly those
 * actions; svcd must store them, show them over HTTP and give them back in the history the worker replays, to the
 * nanosecond (the SDKs recognise their indefinite-wait timer by that exact time).
 */
import { expect } from 'chai';
import type { TaskHubSidecarServiceClient } from '@svc/proto';
import { RawWorker } from '../support/index.js';
import { WorkflowHarness } from './sdk-harness.js';

const FOR_EVER = { seconds: '253402300799', nanos: 999_999_999 };

function start(client: TaskHubSidecarServiceClient, instanceId: string): Promise<void> {
  return new Promise((resolve, reject) => client.StartInstance({ instanceId, name: 'named' }, (err) => (err ? reject(err) : resolve())));
}

describe('workflow timers with names and origins (newer SDKs)', function () {
  this.timeout(60_000);

  it('stores an indefinite wait for an event as sent, replays it to the nanosecond, and the event ends it', async () => {
    const h = await WorkflowHarness.start();
    const w = new RawWorker(h.svcd.grpcAddress);
    try {
      w.connect();
      await start(w.client, 'named-1');
      const first = await w.nextItem(1);
      const wait = { fireAt: FOR_EVER, name: 'approval', externalEvent: { name: 'approval' } };
      expect(await w.completeOrchestration('named-1', [{ id: 0, createTimer: wait }], first.completionToken)).to.equal(null);

      const page = (await (await h.svcd.request('GET', '/v1.0/workflows/svc/named-1/history')).json()) as { events: Record<string, unknown>[] };
      expect(page.events.find((e) => e.type === 'TimerCreated')).to.deep.include({
        eventId: 0,
        fireAt: '9999-12-31T23:59:59.999999999Z',
        name: 'approval',
        origin: { kind: 'externalEvent', name: 'approval' },
      });
      const get = (await (await h.svcd.request('GET', '/v1.0/workflows/svc/named-1')).json()) as { runtimeStatus: string };
      expect(get.runtimeStatus, 'a timer that far away breaks nothing').to.equal('RUNNING');

      expect((await h.svcd.request('POST', '/v1.0/workflows/svc/named-1/raiseEvent/approval', '"yes"')).status).to.equal(202);
      const secondItem = await w.nextItem(2);
      const second = secondItem.orchestratorRequest;
      const replayed = second?.pastEvents.find((e) => e.timerCreated)?.timerCreated;
      expect(replayed).to.deep.include({ fireAt: FOR_EVER, name: 'approval', externalEvent: { name: 'approval' }, origin: 'externalEvent' });
      expect(second?.newEvents.map((e) => e.eventType)).to.deep.equal(['orchestratorStarted', 'eventRaised']);
      const complete = { id: 1, completeOrchestration: { orchestrationStatus: 'ORCHESTRATION_STATUS_COMPLETED' as const, result: { value: '"approved"' } } };
      expect(await w.completeOrchestration('named-1', [complete], secondItem.completionToken)).to.equal(null);
      const done = (await (await h.svcd.request('GET', '/v1.0/workflows/svc/named-1')).json()) as { runtimeStatus: string };
      expect(done.runtimeStatus, 'completes with its never-firing timer still open').to.equal('COMPLETED');
    } finally {
      w.close();
      await h.close();
    }
  });

  it('keeps the origin of timers that retry an activity or a child workflow, and of plain named timers', async () => {
    const h = await WorkflowHarness.start();
    const w = new RawWorker(h.svcd.grpcAddress);
    try {
      w.connect();
      await start(w.client, 'named-2');
      const first = await w.nextItem(1);
      const soon = { seconds: String(Math.floor(Date.now() / 1000) + 3600), nanos: 0 };
      const timers = [
        { fireAt: soon, name: 'nap', createTimer: {} },
        { fireAt: soon, activityRetry: { taskExecutionId: 'exec-1' } },
        { fireAt: soon, childWorkflowRetry: { instanceId: 'child-1' } },
      ];
      expect(await w.completeOrchestration('named-2', timers.map((createTimer, id) => ({ id, createTimer })), first.completionToken)).to.equal(null);
      const page = (await (await h.svcd.request('GET', '/v1.0/workflows/svc/named-2/history')).json()) as { events: Record<string, unknown>[] };
      expect(page.events.filter((e) => e.type === 'TimerCreated').map((e) => [e.name, e.origin])).to.deep.equal([
        ['nap', { kind: 'createTimer' }],
        [undefined, { kind: 'activityRetry', taskExecutionId: 'exec-1' }],
        [undefined, { kind: 'childWorkflowRetry', instanceId: 'child-1' }],
      ]);
    } finally {
      w.close();
      await h.close();
    }
  });
});
