/**
 * The benchmark's workflow worker (its own process, like a real app): `node workflow-worker.js <grpc-address>`.
 * Real `@dapr/durabletask-js`; the SDK's per-work-item console lines are dropped so they cost nothing.
 */
/* eslint-disable @typescript-eslint/require-await -- the SDK runs only async generators as workflows, and a workflow must never await anything itself */
import { TaskHubGrpcWorker, type ActivityContext, type OrchestrationContext } from '@dapr/durabletask-js';
import { whenAll } from '@dapr/durabletask-js/task/index.js';
import type { Task } from '@dapr/durabletask-js/task/task.js';

// The SDK announces its connection only on the console: turn that line into a message for the bench.
console.log = (first?: unknown) => {
  if (typeof first === 'string' && first.startsWith('Successfully connected')) process.send?.('connected');
};
console.info = () => undefined;

/** (a) five activities one after the other. */
async function* sequence(ctx: OrchestrationContext): AsyncGenerator<Task<unknown>, number, unknown> {
  let sum = 0;
  for (let i = 1; i <= 5; i++) sum += (yield ctx.callActivity('work', i)) as number;
  return sum;
}

/** (b) twenty activities in parallel, then their sum. */
async function* fanout(ctx: OrchestrationContext): AsyncGenerator<Task<unknown>, number, unknown> {
  const results = (yield whenAll(Array.from({ length: 20 }, (_, i) => ctx.callActivity('work', i + 1)))) as number[];
  return results.reduce((a, b) => a + b, 0);
}

/** A fan-out of `n` activities (bench/src/fanout-huge.ts: 100,000), then the count of results. */
async function* bigFanout(ctx: OrchestrationContext, n: number): AsyncGenerator<Task<unknown>, number, unknown> {
  const results = (yield whenAll(Array.from({ length: n }, (_, i) => ctx.callActivity('work', i)))) as number[];
  return results.length;
}

/** A huge fan-out (2n history events) that then waits: a large history of a RUNNING instance. */
async function* bigFanoutThenWait(ctx: OrchestrationContext, n: number): AsyncGenerator<Task<unknown>, number, unknown> {
  const results = (yield whenAll(Array.from({ length: n }, (_, i) => ctx.callActivity('work', i)))) as number[];
  ctx.setCustomStatus('fanned-in');
  yield ctx.waitForExternalEvent('finish');
  return results.length;
}

/** (c) one durable timer of `ms`. */
async function* sleeper(ctx: OrchestrationContext, ms: number): AsyncGenerator<Task<unknown>, string, unknown> {
  yield ctx.createTimer(new Date(ctx.currentUtcDateTime.getTime() + ms));
  return 'woke';
}

const worker = new TaskHubGrpcWorker(process.argv[2]);
worker.addNamedOrchestrator('sequence', sequence);
worker.addNamedOrchestrator('fanout', fanout);
worker.addNamedOrchestrator('sleeper', sleeper);
worker.addNamedOrchestrator('bigFanout', bigFanout);
worker.addNamedOrchestrator('bigFanoutThenWait', bigFanoutThenWait);
worker.addNamedActivity('work', (_ctx: ActivityContext, n: number) => n);
await worker.start();
process.on('SIGTERM', () => void worker.stop().finally(() => process.exit(0)));
