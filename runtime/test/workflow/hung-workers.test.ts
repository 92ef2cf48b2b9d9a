/* eslint-disable @typescript-eslint/require-await -- the SDK runs only async generator functions as workflows */
/**
 * Hung workers do not keep their work: a worker that leaves an orchestration task unanswered past the
 * workflow-task timeout, whose stream stays blocked by flow control, or whose process stops answering keepalive
 * pings loses what it holds to the other workers, and its late answers are stale. Real svcd, real SDK workers,
 * raw gRPC streams that never read, a worker process stopped with SIGSTOP.
 */
import type * as grpc from '@grpc/grpc-js';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { ActivityContext, OrchestrationContext } from '@dapr/durabletask-js';
import { whenAll } from '@dapr/durabletask-js/task/index.js';
import type { OrchestratorAction, TaskHubSidecarServiceClient, WorkItem__Output } from '@svc/proto';
import { TestChildProcess } from '../support/child-process.js';
import { rawClient } from '../support/raw-worker.js';
import { eventually } from '../support/eventually.js';
import { quietConsole, restoreConsole, SDK_STATUS, WorkflowHarness } from './sdk-harness.js';

type Gen = AsyncGenerator<unknown, unknown, unknown>;

const STOPPABLE_WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stoppable-worker.js');

async function metric(h: WorkflowHarness, line: RegExp): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${h.svcd.ports.metrics}/metrics`)).text();
  const found = text.split('\n').find((l) => line.test(l));
  return found ? Number(found.split(' ').at(-1)) : 0;
}

async function greet(_ctx: ActivityContext, name: string): Promise<string> {
  return `hello ${name}`;
}

async function* greeting(ctx: OrchestrationContext, name: string): Gen {
  return yield ctx.callActivity(greet, name);
}

// Larger than the HTTP/2 stream window (64 KiB): a stream not read blocks once its client's buffer (16 items) is full.
const BIG = 'x'.repeat(96 * 1024);

async function big(_ctx: ActivityContext, input: string): Promise<number> {
  return input.length;
}

/** n activities of 96 KiB input each; returns the sum of their lengths. */
async function* bigFanOut(ctx: OrchestrationContext, n: number): Gen {
  const lengths = (yield whenAll(Array.from({ length: n }, () => ctx.callActivity(big, BIG)))) as number[];
  return lengths.reduce((a, b) => a + b, 0);
}

async function* oneWork(ctx: OrchestrationContext, n: number): Gen {
  return yield ctx.callActivity('work', n);
}

describe('workflow hung workers', function () {
  this.timeout(90_000);
  before(quietConsole);
  after(restoreConsole);

  it('re-offers the work of twenty streams that never read or answer: 40 workflows complete on the one real worker', async () => {
    const h = await WorkflowHarness.start({ args: ['--workflow-task-timeout', '1s'] });
    const hung = Array.from({ length: 20 }, () => rawClient(h.svcd.grpcAddress));
    try {
      // Never read (no 'data' listener) and never answer, as a deadlocked worker process.
      for (const c of hung) c.GetWorkItems({}).on('error', () => undefined);
      await h.worker((w) => {
        w.addOrchestrator(greeting);
        w.addActivity(greet);
      });
      await eventually('21 workers connected', async () => (await h.connectedWorkers()) === 21);
      const client = h.client();
      const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => client.scheduleNewOrchestration(greeting, `n${i}`)));
      const states = await Promise.all(ids.map((id) => client.waitForOrchestrationCompletion(id, true, 30)));
      expect(states.map((s) => s?.runtimeStatus)).to.deep.equal(ids.map(() => SDK_STATUS.COMPLETED));
      expect(states.map((s) => s?.serializedOutput)).to.deep.equal(ids.map((_, i) => JSON.stringify(`hello n${i}`)));
      expect(await metric(h, /^svc_workflow_unresponsive_workers_total\{reason="task_timeout"[,}]/)).to.be.at.least(1);
      expect(h.svcd.output).to.match(/workflow worker left an orchestration task unanswered past the workflow-task timeout/);
      // The log line names the worker: its id (as in the "connected" line, with its user agent) and its gRPC peer.
      expect(h.svcd.output).to.match(/"worker":\d+,"peer":"127\.0\.0\.1:\d+","reason":"task_timeout"/);
    } finally {
      for (const c of hung) c.close();
      await h.close();
    }
  });

  it('ignores the first worker\'s late answer once the task went to another worker (completion token)', async () => {
    const h = await WorkflowHarness.start({ args: ['--workflow-task-timeout', '1s'] });
    const [first, second] = [rawClient(h.svcd.grpcAddress), rawClient(h.svcd.grpcAddress)];
    const received = new Map<TaskHubSidecarServiceClient, WorkItem__Output[]>([
      [first, []],
      [second, []],
    ]);
    const listen = (c: TaskHubSidecarServiceClient) => c.GetWorkItems({}).on('data', (item: WorkItem__Output) => received.get(c)?.push(item)).on('error', () => undefined);
    const answer = (c: TaskHubSidecarServiceClient, id: string, item: WorkItem__Output, output: string) =>
      new Promise<grpc.ServiceError | null>((resolve) => {
        const action: OrchestratorAction = { id: 1, completeOrchestration: { orchestrationStatus: 'ORCHESTRATION_STATUS_COMPLETED', result: { value: JSON.stringify(output) } } };
        c.CompleteOrchestratorTask({ instanceId: id, actions: [action], completionToken: item.completionToken }, (e) => resolve(e));
      });
    const staleByToken = () => metric(h, /^svc_workflow_stale_answers_total\{kind="orchestration",reason="token"[,}]/);
    try {
      listen(first);
      await eventually('the first worker connected', async () => (await h.connectedWorkers()) === 1);
      const client = h.client();
      const id = await client.scheduleNewOrchestration(greeting, 'x');
      await eventually('the first worker has the batch', async () => received.get(first)?.length === 1);
      listen(second);
      // One task timeout later the batch goes to the second worker, which holds it unanswered for now.
      await eventually('the second worker has the batch', async () => received.get(second)?.length === 1);
      expect(await answer(first, id, received.get(first)?.[0] as WorkItem__Output, 'late')).to.equal(null);
      expect(await staleByToken()).to.equal(1);
      expect(await answer(second, id, received.get(second)?.[0] as WorkItem__Output, 'current')).to.equal(null);
      const state = await client.waitForOrchestrationCompletion(id, true, 30);
      expect(state?.serializedOutput).to.equal(JSON.stringify('current'));
      expect(await staleByToken()).to.equal(1);
    } finally {
      first.close();
      second.close();
      await h.close();
    }
  });

  it('re-offers the activities of a worker whose stream stays blocked by flow control', async () => {
    const h = await WorkflowHarness.start({ args: ['--workflow-task-timeout', '1s'] });
    const stalled = rawClient(h.svcd.grpcAddress);
    const n = 40;
    try {
      // This worker answers the first batch (scheduling n activities of 96 KiB), then stops reading its stream.
      const stream = stalled.GetWorkItems({});
      const first = new Promise<WorkItem__Output>((resolve) =>
        stream.once('data', (item: WorkItem__Output) => {
          stream.pause();
          resolve(item);
        }),
      );
      stream.on('error', () => undefined);
      await eventually('1 workers connected', async () => (await h.connectedWorkers()) === 1);
      const client = h.client();
      const id = await client.scheduleNewOrchestration(bigFanOut, n);
      const item = await first;
      // The SDK worker joins before the answer, so the activities are shared between the two.
      await h.worker((w) => {
        w.addOrchestrator(bigFanOut);
        w.addActivity(big);
      });
      await eventually('2 workers connected', async () => (await h.connectedWorkers()) === 2);
      const actions: OrchestratorAction[] = Array.from({ length: n }, (_, i) => ({ id: i + 1, scheduleTask: { name: 'big', input: { value: JSON.stringify(BIG) } } }));
      await new Promise<void>((resolve, reject) =>
        stalled.CompleteOrchestratorTask({ instanceId: id, actions, completionToken: item.completionToken }, (e) => (e ? reject(e) : resolve())),
      );
      const state = await client.waitForOrchestrationCompletion(id, true, 60);
      expect(state?.failureDetails?.message ?? '').to.equal('');
      expect(state?.runtimeStatus).to.equal(SDK_STATUS.COMPLETED);
      expect(state?.serializedOutput).to.equal(String(n * BIG.length));
      expect(await metric(h, /^svc_workflow_unresponsive_workers_total\{reason="stream_blocked"[,}]/)).to.equal(1);
      expect(h.svcd.output).to.match(/workflow worker stopped reading its work item stream/);
    } finally {
      stalled.close();
      await h.close();
    }
  });

  it('re-offers the activity of a worker process that stopped (SIGSTOP) once it misses keepalive pings', async () => {
    const h = await WorkflowHarness.start({ args: ['--grpc-keepalive-time', '1s', '--grpc-keepalive-timeout', '1s'] });
    const child = new TestChildProcess(spawn(process.execPath, [STOPPABLE_WORKER, h.svcd.grpcAddress], { stdio: ['ignore', 'pipe', 'pipe'] }));
    try {
      await eventually('the worker process started', async () => child.output.includes('worker started'));
      let ran = 0;
      await h.worker((w) => {
        w.addOrchestrator(oneWork);
        w.addNamedActivity('work', async () => `done ${++ran}`);
      });
      await eventually('2 workers connected', async () => (await h.connectedWorkers()) === 2);
      const client = h.client();
      const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => client.scheduleNewOrchestration(oneWork, i)));
      // Round robin: the child process takes some of the activities, then freezes holding them.
      await eventually('the worker process runs an activity', async () => child.output.includes('running'));
      child.child.kill('SIGSTOP');
      const states = await Promise.all(ids.map((id) => client.waitForOrchestrationCompletion(id, true, 30)));
      expect(states.map((s) => s?.runtimeStatus)).to.deep.equal(ids.map(() => SDK_STATUS.COMPLETED));
      expect(states.map((s) => s?.serializedOutput ?? '').filter((o) => o.includes('stopped worker'))).to.deep.equal([]);
      expect(await h.connectedWorkers()).to.equal(1);
    } finally {
      child.child.kill('SIGCONT');
      await child.kill();
      await h.close();
    }
  });
});
