/* eslint-disable @typescript-eslint/require-await -- the SDK runs only async generator functions as workflows */
/**
 * The worker side of the Durable Task protocol under foreign and hostile workers: stale answers (completion
 * tokens, connections), malformed answers, SDK-named sub-workflows, and work routed only to workers that can
 * run it. Raw gRPC workers make the races deterministic; real durabletask-js workers show the routing.
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import type { ActivityContext, OrchestrationContext } from '@dapr/durabletask-js';
import { loadDurableTaskProto, type OrchestratorAction, type TaskHubSidecarServiceClient } from '@svc/proto';
import { RawWorker } from '../support/index.js';
import { quietConsole, restoreConsole, SDK_STATUS, WorkflowHarness } from './sdk-harness.js';

type Gen = AsyncGenerator<unknown, unknown, unknown>;

function start(client: TaskHubSidecarServiceClient, instanceId: string, name = 'wf'): Promise<grpc.ServiceError | null> {
  return new Promise((resolve) => client.StartInstance({ instanceId, name }, (err) => resolve(err)));
}

async function history(client: TaskHubSidecarServiceClient, instanceId: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    client.GetInstanceHistory({ instanceId }, (err, res) => (err || !res ? reject(err ?? new Error('no response')) : resolve(res.events.map((e) => e.eventType ?? '')))),
  );
}

async function status(client: TaskHubSidecarServiceClient, instanceId: string): Promise<{ status: string; output?: string; failure?: string }> {
  return new Promise((resolve, reject) =>
    client.GetInstance({ instanceId, getInputsAndOutputs: true }, (err, res) => {
      if (err || !res?.orchestrationState) return reject(err ?? new Error(`no instance ${instanceId}`));
      const s = res.orchestrationState;
      resolve({ status: s.orchestrationStatus, ...(s.output ? { output: s.output.value } : {}), ...(s.failureDetails ? { failure: s.failureDetails.errorType } : {}) });
    }),
  );
}

const scheduleTask = (id: number, name: string): OrchestratorAction => ({ id, scheduleTask: { name, input: { value: '1' } } });
const complete = (id: number, result: string): OrchestratorAction => ({ id, completeOrchestration: { orchestrationStatus: 'ORCHESTRATION_STATUS_COMPLETED', result: { value: result } } });

async function metric(h: WorkflowHarness, line: RegExp): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${h.svcd.ports.metrics}/metrics`)).text();
  const found = text.split('\n').find((l) => line.test(l));
  return found ? Number(found.split(' ').at(-1)) : 0;
}

describe('workflow worker protocol (stale, malformed and foreign answers)', function () {
  this.timeout(60_000);
  before(quietConsole);
  after(restoreConsole);

  it('ignores a late answer to an earlier hand-out of a batch: by completion token, and by connection without one', async () => {
    const h = await WorkflowHarness.start();
    const a = new RawWorker(h.svcd.grpcAddress);
    const b = new RawWorker(h.svcd.grpcAddress);
    try {
      a.connect();
      expect(await start(a.client, 'stale-1')).to.equal(null);
      const first = await a.nextItem(1);
      expect(first.completionToken, 'every work item carries a completion token').to.match(/\S/);
      b.connect();
      await new Promise((r) => setTimeout(r, 200)); // b's stream is registered before a's drops
      a.dropStream(); // a's stream breaks while it works on the batch: the batch goes to b
      const second = await b.nextItem(1);
      expect(second.orchestratorRequest?.instanceId).to.equal('stale-1');
      expect(second.completionToken).to.not.equal(first.completionToken);

      // b answers; a's late answers arrive while b holds the next item: with a's token, and without any token.
      expect(await b.completeOrchestration('stale-1', [scheduleTask(0, 'act')], second.completionToken)).to.equal(null);
      const activity = await b.nextItem(2);
      expect(activity.activityRequest?.name).to.equal('act');
      expect(await a.completeActivity('stale-1', 0, '"wrong"')).to.equal(null);
      expect(await b.completeActivity('stale-1', 0, '"right"', activity.completionToken)).to.equal(null);
      const last = await b.nextItem(3);
      expect(await a.completeOrchestration('stale-1', [scheduleTask(0, 'act'), complete(1, '"forged"')], first.completionToken)).to.equal(null);
      expect(await a.completeOrchestration('stale-1', [complete(0, '"forged"')])).to.equal(null);

      expect(await history(a.client, 'stale-1')).to.deep.equal(['orchestratorStarted', 'executionStarted', 'taskScheduled']);
      expect((await status(a.client, 'stale-1')).status).to.equal('ORCHESTRATION_STATUS_RUNNING');
      expect(await metric(h, /^svc_workflow_stale_answers_total\{kind="orchestration",reason="token"[,}]/)).to.equal(1);
      expect(await metric(h, /^svc_workflow_stale_answers_total\{kind="orchestration",reason="connection"[,}]/)).to.equal(1);
      expect(await metric(h, /^svc_workflow_stale_answers_total\{kind="activity",reason="connection"[,}]/)).to.equal(1);

      // The real answers complete it, with b's result.
      const newEvents = last.orchestratorRequest?.newEvents.map((e) => e.eventType);
      expect(newEvents).to.deep.equal(['orchestratorStarted', 'taskCompleted']);
      expect(last.orchestratorRequest?.newEvents[1]?.taskCompleted?.result?.value).to.equal('"right"');
      expect(await b.completeOrchestration('stale-1', [complete(1, '"done"')], last.completionToken)).to.equal(null);
      expect(await status(a.client, 'stale-1')).to.deep.equal({ status: 'ORCHESTRATION_STATUS_COMPLETED', output: '"done"' });
    } finally {
      a.close();
      b.close();
      await h.close();
    }
  });

  it('rejects an answer with duplicate action ids (INVALID_ARGUMENT) and fails the instance visibly', async () => {
    const h = await WorkflowHarness.start();
    const w = new RawWorker(h.svcd.grpcAddress);
    try {
      w.connect();
      expect(await start(w.client, 'dup-1')).to.equal(null);
      const item = await w.nextItem(1);
      const err = await w.completeOrchestration('dup-1', [scheduleTask(3, 'a'), scheduleTask(3, 'b')], item.completionToken);
      expect(err?.code).to.equal(grpc.status.INVALID_ARGUMENT);
      expect(err?.details).to.match(/more than one action with id 3/);
      expect(await status(w.client, 'dup-1')).to.include({ status: 'ORCHESTRATION_STATUS_FAILED', failure: 'InvalidWorkflowActions' });
    } finally {
      w.close();
      await h.close();
    }
  });

  it('refuses an answer with an undecodable action (INVALID_ARGUMENT) and takes the corrected answer to the same item', async () => {
    const h = await WorkflowHarness.start();
    const w = new RawWorker(h.svcd.grpcAddress);
    try {
      w.connect();
      expect(await start(w.client, 'garbled-1')).to.equal(null);
      const item = await w.nextItem(1);
      // OrchestratorResponse{instanceId, actions: [a good action, an action cut inside a varint]}, sent as raw bytes.
      const proto = loadDurableTaskProto().service.CompleteOrchestratorTask;
      const good = proto.requestSerialize({ instanceId: 'garbled-1', actions: [complete(0, '"x"')], completionToken: item.completionToken });
      const garbled = Buffer.concat([good, Buffer.from([0x12, 0x02, 0x08, 0xff])]);
      const err = await new Promise<grpc.ServiceError | null>((resolve) =>
        w.client.makeUnaryRequest('/TaskHubSidecarService/CompleteOrchestratorTask', (b: Buffer) => b, (b: Buffer) => b, garbled, (e) => resolve(e)),
      );
      expect(err?.code).to.equal(grpc.status.INVALID_ARGUMENT);
      expect(err?.details).to.match(/action 1 of the answer cannot be decoded/);
      expect((await status(w.client, 'garbled-1')).status, 'nothing of the refused answer applied').to.equal('ORCHESTRATION_STATUS_PENDING');
      expect(await w.completeOrchestration('garbled-1', [complete(0, '"fixed"')], item.completionToken)).to.equal(null);
      expect(await status(w.client, 'garbled-1')).to.deep.equal({ status: 'ORCHESTRATION_STATUS_COMPLETED', output: '"fixed"' });
    } finally {
      w.close();
      await h.close();
    }
  });

  it('starts a sub-workflow sent without an instance ID as `<parent>:<action id in 4 hex digits>`', async () => {
    const h = await WorkflowHarness.start();
    const w = new RawWorker(h.svcd.grpcAddress);
    try {
      w.connect();
      expect(await start(w.client, 'parent-1', 'parent')).to.equal(null);
      const item = await w.nextItem(1);
      const err = await w.completeOrchestration('parent-1', [{ id: 26, createSubOrchestration: { instanceId: '', name: 'child' } }], item.completionToken);
      expect(err).to.equal(null);
      const childItem = await w.nextItem(2);
      expect(childItem.orchestratorRequest?.instanceId).to.equal('parent-1:001a');
      expect(await w.completeOrchestration('parent-1:001a', [complete(0, '"from child"')], childItem.completionToken)).to.equal(null);
      const parentTurn = await w.nextItem(3);
      expect(parentTurn.orchestratorRequest?.newEvents[1]?.subOrchestrationInstanceCompleted?.result?.value).to.equal('"from child"');
    } finally {
      w.close();
      await h.close();
    }
  });

  it('applies the HTTP instance-ID rules on gRPC', async () => {
    const h = await WorkflowHarness.start();
    const w = new RawWorker(h.svcd.grpcAddress);
    try {
      for (const bad of ['a\u0000b', 'a/b', '../x', 'x'.repeat(100_000)]) {
        const err = await start(w.client, bad);
        expect(err?.code, JSON.stringify(bad.slice(0, 20))).to.equal(grpc.status.INVALID_ARGUMENT);
      }
      const err = await new Promise<grpc.ServiceError | null>((resolve) => w.client.RaiseEvent({ instanceId: 'a/b', name: 'e' }, (e) => resolve(e)));
      expect(err?.code).to.equal(grpc.status.INVALID_ARGUMENT);
    } finally {
      w.close();
      await h.close();
    }
  });

  it('routes work only to workers that registered it: two worker apps on one svcd do not break each other', async () => {
    const h = await WorkflowHarness.start();
    try {
      async function* billing(ctx: OrchestrationContext): Gen {
        return yield ctx.callActivity('charge', 2);
      }
      async function* shipping(ctx: OrchestrationContext): Gen {
        return yield ctx.callActivity('ship', 3);
      }
      await h.worker((w) => {
        w.addNamedOrchestrator('billing', billing);
        w.addNamedActivity('charge', (_: ActivityContext, n: number) => n * 10);
      });
      await h.worker((w) => {
        w.addNamedOrchestrator('shipping', shipping);
        w.addNamedActivity('ship', (_: ActivityContext, n: number) => n * 100);
      });
      const client = h.client();
      const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => client.scheduleNewOrchestration(i % 2 ? 'shipping' : 'billing', undefined, `route-${i}`)));
      for (const [i, id] of ids.entries()) {
        const state = await client.waitForOrchestrationCompletion(id, true, 30);
        expect(state?.runtimeStatus, id).to.equal(SDK_STATUS.COMPLETED);
        expect(state?.serializedOutput).to.equal(i % 2 ? '300' : '20');
      }
      // An unknown workflow still fails, once every connected worker refused it.
      const lost = await client.scheduleNewOrchestration('nobody-has-this');
      const state = await client.waitForOrchestrationCompletion(lost, true, 30);
      expect(state?.runtimeStatus).to.equal(SDK_STATUS.FAILED);
      expect(state?.failureDetails?.errorType).to.equal('OrchestratorNotRegisteredError');
      expect(await metric(h, /^svc_workflow_refused_work_total\{kind="orchestration"[,}]/)).to.be.greaterThan(0);
    } finally {
      await h.close();
    }
  });
});

describe('workflow RPCs the other SDKs call (history, rerun, ID reuse policy)', function () {
  this.timeout(60_000);
  before(quietConsole);
  after(restoreConsole);

  const executions = new Map<string, number>();
  async function* chain(ctx: OrchestrationContext, n: number): Gen {
    const a = (yield ctx.callActivity('step', `a:${n}`)) as string;
    const b = (yield ctx.callActivity('step', `b:${n}`)) as string;
    return `${a},${b},${(yield ctx.callActivity('step', 'c')) as string}`;
  }
  async function* waits(ctx: OrchestrationContext, input: string): Gen {
    yield ctx.waitForExternalEvent('go');
    return input;
  }
  const register = (w: Parameters<Parameters<WorkflowHarness['worker']>[0]>[0]) => {
    w.addNamedOrchestrator('chain', chain);
    w.addNamedOrchestrator('waits', waits);
    w.addNamedActivity('step', (_: ActivityContext, s: string) => {
      executions.set(s, (executions.get(s) ?? 0) + 1);
      return s.toUpperCase();
    });
  };
  const call = <Res>(run: (cb: (err: grpc.ServiceError | null, res?: Res) => void) => unknown) =>
    new Promise<{ err: grpc.ServiceError | null; res?: Res }>((resolve) => run((err, res) => resolve({ err, ...(res !== undefined ? { res } : {}) })));

  it('GetInstanceHistory returns the events in order; RerunWorkflowFromEvent reruns from an activity with a new input', async () => {
    const h = await WorkflowHarness.start();
    const raw = new RawWorker(h.svcd.grpcAddress);
    try {
      await h.worker(register);
      const client = h.client();
      await client.scheduleNewOrchestration('chain', 1, 'rerun-src');
      expect((await client.waitForOrchestrationCompletion('rerun-src', true, 30))?.serializedOutput).to.equal('"A:1,B:1,C"');
      type Event = { eventId: number; eventType?: string; taskScheduled?: { name: string; input?: { value: string } | null } | null; executionCompleted?: { orchestrationStatus: string } | null };
      const events = await new Promise<Event[]>((resolve, reject) =>
        raw.client.GetInstanceHistory({ instanceId: 'rerun-src' }, (err, res) => (err || !res ? reject(err ?? new Error('no response')) : resolve(res.events))),
      );
      expect(events.map((e) => e.eventType)).to.include.ordered.members(['orchestratorStarted', 'executionStarted', 'taskScheduled', 'orchestratorStarted', 'taskCompleted']);
      expect(events.at(-1)?.eventType).to.equal('executionCompleted');
      expect(events.at(-1)?.executionCompleted?.orchestrationStatus).to.equal('ORCHESTRATION_STATUS_COMPLETED');
      const b = events.find((e) => e.taskScheduled?.input?.value === '"b:1"');
      expect(b, 'the second activity is in the history').to.not.equal(undefined);

      const before = new Map(executions);
      const { err, res } = await call<{ newInstanceID: string }>((cb) =>
        raw.client.RerunWorkflowFromEvent({ sourceInstanceID: 'rerun-src', eventID: b!.eventId, newInstanceID: 'rerun-new', input: { value: '"b:9"' }, overwriteInput: true }, cb),
      );
      expect(err).to.equal(null);
      expect(res?.newInstanceID).to.equal('rerun-new');
      const state = await client.waitForOrchestrationCompletion('rerun-new', true, 30);
      expect(state?.serializedOutput, 'a kept, b rerun with the new input, c run again').to.equal('"A:1,B:9,C"');
      expect(executions.get('a:1')).to.equal(before.get('a:1'));
      expect(executions.get('b:9')).to.equal(1);
      expect((await client.getOrchestrationState('rerun-src', true))?.serializedOutput, 'the source is unchanged').to.equal('"A:1,B:1,C"');

      // Refusals: an unknown source, an event that is not an activity or sub-workflow start, a source still running.
      expect((await call((cb) => raw.client.RerunWorkflowFromEvent({ sourceInstanceID: 'nope', eventID: 0 }, cb))).err?.code).to.equal(grpc.status.NOT_FOUND);
      expect((await call((cb) => raw.client.RerunWorkflowFromEvent({ sourceInstanceID: 'rerun-src', eventID: 999 }, cb))).err?.code).to.equal(grpc.status.INVALID_ARGUMENT);
      await client.scheduleNewOrchestration('waits', 'x', 'rerun-live');
      await client.waitForOrchestrationStart('rerun-live', false, 30);
      expect((await call((cb) => raw.client.RerunWorkflowFromEvent({ sourceInstanceID: 'rerun-live', eventID: 0 }, cb))).err?.code).to.equal(grpc.status.FAILED_PRECONDITION);
      expect((await call((cb) => raw.client.GetInstanceHistory({ instanceId: 'nope' }, cb))).err?.code).to.equal(grpc.status.NOT_FOUND);
    } finally {
      raw.close();
      await h.close();
    }
  });

  it('honours the instance-ID reuse policy and enforceUniqueInstanceId on StartInstance', async () => {
    const h = await WorkflowHarness.start();
    const raw = new RawWorker(h.svcd.grpcAddress);
    const startWith = (instanceId: string, input: string, extra: object) =>
      call<{ instanceId: string }>((cb) => raw.client.StartInstance({ instanceId, name: 'waits', input: { value: input }, ...extra }, cb));
    const running = ['ORCHESTRATION_STATUS_RUNNING'];
    try {
      await h.worker(register);
      const client = h.client();
      await client.scheduleNewOrchestration('waits', 'first', 'reuse-1');
      await client.waitForOrchestrationStart('reuse-1', false, 30);
      // IGNORE while RUNNING: the same ID is answered and the running instance is untouched.
      const ignored = await startWith('reuse-1', '"second"', { orchestrationIdReusePolicy: { operationStatus: running, action: 'IGNORE' } });
      expect(ignored.err).to.equal(null);
      expect(ignored.res?.instanceId).to.equal('reuse-1');
      expect((await client.getOrchestrationState('reuse-1', true))?.serializedInput).to.equal('"first"');
      // A status the policy does not list, ERROR, and enforceUniqueInstanceId refuse the start.
      expect((await startWith('reuse-1', '"x"', { orchestrationIdReusePolicy: { operationStatus: ['ORCHESTRATION_STATUS_COMPLETED'], action: 'TERMINATE' } })).err?.code).to.equal(grpc.status.ALREADY_EXISTS);
      expect((await startWith('reuse-1', '"x"', { orchestrationIdReusePolicy: { operationStatus: running, action: 'ERROR' } })).err?.code).to.equal(grpc.status.ALREADY_EXISTS);
      expect((await startWith('reuse-1', '"x"', { enforceUniqueInstanceId: true })).err?.code).to.equal(grpc.status.ALREADY_EXISTS);
      // TERMINATE while RUNNING: a new run replaces it.
      expect((await startWith('reuse-1', '"third"', { orchestrationIdReusePolicy: { operationStatus: running, action: 'TERMINATE' } })).err).to.equal(null);
      await client.raiseOrchestrationEvent('reuse-1', 'go', null);
      const state = await client.waitForOrchestrationCompletion('reuse-1', true, 30);
      expect(state?.serializedOutput).to.equal('"third"');
      // Finished: the default replaces it, enforceUniqueInstanceId still refuses.
      expect((await startWith('reuse-1', '"x"', { enforceUniqueInstanceId: true })).err?.code).to.equal(grpc.status.ALREADY_EXISTS);
      expect((await startWith('reuse-1', '"fourth"', {})).err).to.equal(null);
      await client.raiseOrchestrationEvent('reuse-1', 'go', null);
      expect((await client.waitForOrchestrationCompletion('reuse-1', true, 30))?.serializedOutput).to.equal('"fourth"');
    } finally {
      raw.close();
      await h.close();
    }
  });
});
