/* eslint-disable @typescript-eslint/require-await -- the SDK runs only async generator functions as workflows */
/**
 * What survives: a worker that disconnects mid-work, svcd killed with SIGKILL mid-workflow, graceful shutdown of
 * worker streams, the API token and the no-actor-store case on the Durable Task gRPC service.
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import type { ActivityContext, OrchestrationContext } from '@dapr/durabletask-js';
import { SvcdProcess, rawClient } from '../support/index.js';
import { quietConsole, restoreConsole, SDK_STATUS, WorkflowHarness } from './sdk-harness.js';

type Gen = AsyncGenerator<unknown, unknown, unknown>;

function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('workflow resilience (real svcd, real durabletask-js worker)', function () {
  this.timeout(90_000);
  before(quietConsole);
  after(restoreConsole);

  it('hands work held by a worker that disconnects to the next worker', async () => {
    const h = await WorkflowHarness.start();
    try {
      const reached = deferred();
      const never = new Promise<string>(() => undefined);
      async function* slowFlow(ctx: OrchestrationContext): Gen {
        return yield ctx.callActivity('slow', 'x');
      }
      const first = await h.worker((w) => {
        w.addOrchestrator(slowFlow);
        w.addNamedActivity('slow', () => {
          reached.resolve();
          return never; // this worker never answers
        });
      });
      const client = h.client();
      const id = await client.scheduleNewOrchestration(slowFlow);
      await reached.promise;
      await h.stopWorker(first);
      await h.worker((w) => {
        w.addOrchestrator(slowFlow);
        w.addNamedActivity('slow', (_ctx: ActivityContext, v: string) => `done by the second worker with ${v}`);
      });
      const state = await client.waitForOrchestrationCompletion(id, true, 60);
      expect(state?.runtimeStatus).to.equal(SDK_STATUS.COMPLETED);
      expect(state?.serializedOutput).to.equal('"done by the second worker with x"');
    } finally {
      await h.close();
    }
  });

  it('shares work between several connected workers', async () => {
    const h = await WorkflowHarness.start();
    try {
      const ranBy: string[] = [];
      async function* fanOut(ctx: OrchestrationContext, n: number): Gen {
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) out.push(yield ctx.callActivity('where', i));
        return out.length;
      }
      for (const name of ['w1', 'w2']) {
        await h.worker((w) => {
          w.addOrchestrator(fanOut);
          w.addNamedActivity('where', () => void ranBy.push(name));
        });
      }
      const client = h.client();
      const ids = await Promise.all(Array.from({ length: 6 }, () => client.scheduleNewOrchestration(fanOut, 4)));
      for (const id of ids) expect((await client.waitForOrchestrationCompletion(id, true, 60))?.serializedOutput).to.equal('4');
      expect(ranBy).to.have.length(24);
      expect(new Set(ranBy)).to.deep.equal(new Set(['w1', 'w2']));
      expect(await h.connectedWorkers()).to.equal(2);
    } finally {
      await h.close();
    }
  });

  it('finishes a workflow after svcd is killed (SIGKILL) with an activity in flight and a timer pending', async () => {
    const h = await WorkflowHarness.start();
    const { ports, resourcesPath, dataDir } = h.svcd;
    try {
      const firstRan = deferred();
      let secondRuns = 0;
      async function* crashFlow(ctx: OrchestrationContext): Gen {
        const a = yield ctx.callActivity('first', 1);
        yield ctx.createTimer(2);
        const b = yield ctx.callActivity('second', 2);
        return [a, b];
      }
      await h.worker((w) => {
        w.addOrchestrator(crashFlow);
        w.addNamedActivity('first', (_c: ActivityContext, n: number) => {
          firstRan.resolve();
          return n * 10;
        });
        w.addNamedActivity('second', (_c: ActivityContext, n: number) => {
          secondRuns++;
          return n * 10;
        });
      });
      const id = await h.client().scheduleNewOrchestration(crashFlow);
      await firstRan.promise;
      await h.svcd.kill();
      h.svcd = await SvcdProcess.start({ ports, resourcesPath, dataDir });
      // The worker reconnects by itself (the SDK retries every 5 s); work recorded before the crash is not lost.
      const state = await h.client().waitForOrchestrationCompletion(id, true, 60);
      expect(state?.runtimeStatus).to.equal(SDK_STATUS.COMPLETED);
      expect(JSON.parse(state!.serializedOutput!)).to.deep.equal([10, 20]);
      expect(secondRuns).to.be.greaterThanOrEqual(1);
    } finally {
      await h.close();
    }
  });

  it('a burst of timers due together, svcd killed (SIGKILL) as the first fires commit: every timer fires, each TimerFired is in history once', async () => {
    const h = await WorkflowHarness.start();
    const { ports, resourcesPath, dataDir } = h.svcd;
    const count = 300;
    try {
      async function* sleepUntil(ctx: OrchestrationContext, at: number): Gen {
        yield ctx.createTimer(new Date(at));
        return 'woke';
      }
      await h.worker((w) => w.addOrchestrator(sleepUntil));
      const client = h.client();
      const ids = Array.from({ length: count }, (_, i) => `burst-${i}`);
      // Far enough ahead for every start on a busy machine: the kill must come while the timers fire.
      const due = Date.now() + 15_000;
      await Promise.all(ids.map((id) => client.scheduleNewOrchestration(sleepUntil, due, id)));
      const fired = async () => {
        const text = await (await fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).text();
        return Number(/^svc_workflow_timers_fired_total\S* (\d+)/m.exec(text)?.[1] ?? 0);
      };
      expect(await fired(), 'fired before the due time').to.equal(0);
      await new Promise((r) => setTimeout(r, due - Date.now()));
      while ((await fired()) === 0) await new Promise((r) => setTimeout(r, 2));
      await h.svcd.kill();
      h.svcd = await SvcdProcess.start({ ports, resourcesPath, dataDir });
      for (const id of ids) {
        expect((await client.waitForOrchestrationCompletion(id, false, 60))?.runtimeStatus).to.equal(SDK_STATUS.COMPLETED);
        const page = (await (await h.svcd.request('GET', `/v1.0/workflows/svc/${id}/history`)).json()) as { events: { type: string }[] };
        expect(page.events.filter((e) => e.type === 'TimerFired'), id).to.have.length(1);
      }
    } finally {
      await h.close();
    }
  });

  it('ends GetWorkItems streams with status OK and pending waits with UNAVAILABLE on graceful shutdown', async () => {
    const h = await WorkflowHarness.start();
    const client = rawClient(h.svcd.grpcAddress);
    try {
      const stream = client.GetWorkItems({});
      const status = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
      stream.on('data', () => undefined);
      stream.on('error', () => undefined);
      await new Promise<void>((resolve, reject) => client.Hello({}, (err) => (err ? reject(err) : resolve())));
      await new Promise<void>((resolve, reject) => client.StartInstance({ instanceId: 'never-runs', name: 'nobody' }, (err) => (err ? reject(err) : resolve())));
      const waiting = new Promise<grpc.ServiceError | null>((resolve) => client.WaitForInstanceCompletion({ instanceId: 'never-runs' }, (err) => resolve(err)));
      const stopped = h.svcd.stop();
      expect((await status).code).to.equal(grpc.status.OK);
      expect((await waiting)?.code).to.equal(grpc.status.UNAVAILABLE);
      await stopped;
      expect((await h.svcd.exited).code).to.equal(0);
    } finally {
      client.close();
      await h.close();
    }
  });

  it('checks the API token on the Durable Task service (svc-api-token or dapr-api-token metadata)', async () => {
    const h = await WorkflowHarness.start({ env: { SVC_API_TOKEN: 'secret-token' } });
    const client = rawClient(h.svcd.grpcAddress);
    const hello = (md: grpc.Metadata) => new Promise<grpc.ServiceError | null>((resolve) => client.Hello({}, md, (err) => resolve(err)));
    try {
      expect((await hello(new grpc.Metadata()))?.code).to.equal(grpc.status.UNAUTHENTICATED);
      const wrong = new grpc.Metadata();
      wrong.set('dapr-api-token', 'nope');
      expect((await hello(wrong))?.code).to.equal(grpc.status.UNAUTHENTICATED);
      for (const header of ['svc-api-token', 'dapr-api-token']) {
        const md = new grpc.Metadata();
        md.set(header, 'secret-token');
        expect(await hello(md)).to.equal(null);
      }
    } finally {
      client.close();
      await h.close();
    }
  });

  it('answers protocol edge cases with clear statuses (unknown instance, purge filter, stale answers)', async () => {
    const h = await WorkflowHarness.start();
    const client = rawClient(h.svcd.grpcAddress);
    const call = (run: (cb: (err: grpc.ServiceError | null) => void) => unknown) => new Promise<grpc.ServiceError | null>((resolve) => run((err) => resolve(err)));
    try {
      expect((await call((cb) => client.RaiseEvent({ instanceId: 'nope', name: 'x' }, cb)))?.code).to.equal(grpc.status.NOT_FOUND);
      expect((await call((cb) => client.TerminateInstance({ instanceId: 'nope' }, cb)))?.code).to.equal(grpc.status.NOT_FOUND);
      expect((await call((cb) => client.SuspendInstance({ instanceId: 'nope' }, cb)))?.code).to.equal(grpc.status.NOT_FOUND);
      // A filter that matches nothing (no instance exists) purges nothing; it is not an error.
      expect(await call((cb) => client.PurgeInstances({ purgeInstanceFilter: { runtimeStatus: [] } }, cb))).to.equal(null);
      // Answers nobody asked for (e.g. from a worker that outlived a restart) are ignored, not errors.
      expect(await call((cb) => client.CompleteOrchestratorTask({ instanceId: 'nope', actions: [] }, cb))).to.equal(null);
      expect(await call((cb) => client.CompleteWorkflowTask({ instanceId: 'nope', actions: [] }, cb))).to.equal(null);
      expect(await call((cb) => client.CompleteActivityTask({ instanceId: 'nope', taskId: 1 }, cb))).to.equal(null);
    } finally {
      client.close();
      await h.close();
    }
  });

  it('keeps a start or completion wait for an instance not yet created open until it is created, or until the deadline', async () => {
    // As daprd and the durabletask-go suite expect (Test_Grpc_WaitForInstanceStart_Timeout): a client may wait for
    // an instance before scheduling it. Its answer used to be NOT_FOUND at once.
    const h = await WorkflowHarness.start();
    const client = rawClient(h.svcd.grpcAddress);
    type Wait = 'WaitForInstanceStart' | 'WaitForInstanceCompletion';
    const wait = (rpc: Wait, instanceId: string, ms: number) =>
      new Promise<{ err: grpc.ServiceError | null; status?: string }>((resolve) =>
        client[rpc]({ instanceId }, { deadline: Date.now() + ms }, (err, res) => resolve({ err, status: res?.orchestrationState?.orchestrationStatus as string | undefined })),
      );
    try {
      const never = await wait('WaitForInstanceStart', 'not-yet-1', 1_000);
      expect(never.err?.code, never.err?.message).to.equal(grpc.status.DEADLINE_EXCEEDED);
      const neverDone = await wait('WaitForInstanceCompletion', 'not-yet-1', 1_000);
      expect(neverDone.err?.code, neverDone.err?.message).to.equal(grpc.status.DEADLINE_EXCEEDED);

      async function* waiter(ctx: OrchestrationContext): Gen {
        return yield ctx.waitForExternalEvent('go');
      }
      await h.worker((w) => w.addNamedOrchestrator('waiter', waiter));
      const started = wait('WaitForInstanceStart', 'later-1', 20_000);
      const completed = wait('WaitForInstanceCompletion', 'later-1', 20_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await new Promise<void>((resolve, reject) => client.StartInstance({ instanceId: 'later-1', name: 'waiter' }, (err) => (err ? reject(err) : resolve())));
      const running = await started;
      expect(running.err, running.err?.message).to.equal(null);
      expect(running.status).to.equal('ORCHESTRATION_STATUS_RUNNING');
      await new Promise<void>((resolve, reject) => client.RaiseEvent({ instanceId: 'later-1', name: 'go', input: { value: '"now"' } }, (err) => (err ? reject(err) : resolve())));
      const done = await completed;
      expect(done.err, done.err?.message).to.equal(null);
      expect(done.status).to.equal('ORCHESTRATION_STATUS_COMPLETED');
    } finally {
      client.close();
      await h.close();
    }
  });

  it('answers workflow calls with ERR_ACTOR_RUNTIME_NOT_FOUND when no actor state store exists', async () => {
    const svcd = await SvcdProcess.start();
    const client = rawClient(svcd.grpcAddress);
    try {
      const err = await new Promise<grpc.ServiceError | null>((resolve) => client.StartInstance({ instanceId: 'x', name: 'wf' }, (e) => resolve(e)));
      expect(err?.code).to.equal(grpc.status.FAILED_PRECONDITION);
      expect(err?.details).to.contain('actor');
      const res = await svcd.request('POST', '/v1.0/workflows/svc/wf/start?instanceID=x');
      expect(res.status).to.equal(500);
      expect(((await res.json()) as { errorCode: string }).errorCode).to.equal('ERR_ACTOR_RUNTIME_NOT_FOUND');
      const stream = client.GetWorkItems({});
      const streamErr = await new Promise<grpc.ServiceError>((resolve) => stream.on('error', resolve));
      expect(streamErr.code).to.equal(grpc.status.FAILED_PRECONDITION);
    } finally {
      client.close();
      await svcd.stop();
    }
  });
});
