/* eslint-disable @typescript-eslint/require-await -- the SDK runs only async generators as workflows, and a workflow must never await anything itself (replay must be deterministic) */
import { randomUUID } from 'node:crypto';
import type { ActivityContext, OrchestrationContext, TaskHubGrpcWorker } from '@dapr/durabletask-js';
import { whenAll } from '@dapr/durabletask-js/task/index.js';
import type { Task } from '@dapr/durabletask-js/task/task.js';
import type { WorkerMessage } from './messages.js';

/**
 * The workflows the e2e suites run, written with the real `@dapr/durabletask-js` API. Orchestrators must be
 * async generators (the SDK completes anything else immediately).
 */

export interface StepsInput {
  count: number;
  /** Activity that runs each step: `record` (reports to the test) or `noop` (benchmarks). */
  activity?: 'record' | 'noop';
  /** How long each `record` activity works before it finishes (gives tests time to kill something mid-activity). */
  sleepMs?: number;
  /** After every `timerEvery`-th step, wait on a durable timer of `timerMs`. */
  timerEvery?: number;
  timerMs?: number;
}

type Report = (msg: WorkerMessage) => void;

function after(ctx: OrchestrationContext, ms: number): Task<unknown> {
  return ctx.createTimer(new Date(ctx.currentUtcDateTime.getTime() + ms));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `count` sequential activities (optionally with timers between them); returns every step's result in order. */
async function* steps(ctx: OrchestrationContext, input: StepsInput): AsyncGenerator<Task<unknown>, unknown[], unknown> {
  const results: unknown[] = [];
  for (let step = 1; step <= input.count; step++) {
    results.push(yield ctx.callActivity(input.activity ?? 'record', { step, sleepMs: input.sleepMs ?? 0 }));
    if (input.timerEvery && step % input.timerEvery === 0) yield after(ctx, input.timerMs ?? 1000);
  }
  return results;
}

/** `count` activities in parallel, then their sum. */
async function* fanout(ctx: OrchestrationContext, count: number): AsyncGenerator<Task<unknown>, number, unknown> {
  const tasks = Array.from({ length: count }, (_, i) => ctx.callActivity('noop', { step: i + 1 }));
  const results = (yield whenAll(tasks)) as { step: number }[];
  return results.reduce((sum, r) => sum + r.step, 0);
}

/** Waits for the `approval` event (custom status says so) and returns its payload. */
async function* approval(ctx: OrchestrationContext): AsyncGenerator<Task<unknown>, unknown, unknown> {
  ctx.setCustomStatus('waiting-for-approval');
  const decision: unknown = yield ctx.waitForExternalEvent('approval');
  ctx.setCustomStatus('decided');
  return { decision };
}

/** Waits for a timer of `ms` and returns "woke". */
async function* sleeper(ctx: OrchestrationContext, ms: number): AsyncGenerator<Task<unknown>, string, unknown> {
  yield after(ctx, ms);
  return 'woke';
}

/** Fails through an activity that throws. */
async function* failing(ctx: OrchestrationContext): AsyncGenerator<Task<unknown>, unknown, unknown> {
  return yield ctx.callActivity('explode', 'kaboom');
}

/** Starts `approval` as a sub-workflow with a predictable ID (`<parent>-child`) and returns what it returned. */
async function* parent(ctx: OrchestrationContext): AsyncGenerator<Task<unknown>, unknown, unknown> {
  const child: unknown = yield ctx.callSubOrchestrator('approval', undefined, `${ctx.instanceId}-child`);
  return { child };
}

/**
 * Continues as new until `round` reaches `rounds`, keeping events raised meanwhile (saveEvents), then waits for
 * `finish` and returns the rounds it went through plus the event.
 */
async function* rounds(ctx: OrchestrationContext, input: { round: number; rounds: number }): AsyncGenerator<Task<unknown>, unknown, unknown> {
  if (input.round < input.rounds) {
    yield after(ctx, 10);
    ctx.continueAsNew({ round: input.round + 1, rounds: input.rounds }, true);
    return undefined;
  }
  const finish: unknown = yield ctx.waitForExternalEvent('finish');
  return { round: input.round, finish };
}

/**
 * `count` activities in parallel, each told its chapter (`count`), then waits for `next` (custom status
 * `waiting-<count>`): a number continues as new with that many activities, anything else completes. Each run's
 * history says which run it is, in every TaskScheduled.
 */
async function* chapters(ctx: OrchestrationContext, count: number): AsyncGenerator<Task<unknown>, number, unknown> {
  yield whenAll(Array.from({ length: count }, (_, i) => ctx.callActivity('noop', { step: i + 1, chapter: count })));
  ctx.setCustomStatus(`waiting-${count}`);
  const next: unknown = yield ctx.waitForExternalEvent('next');
  if (typeof next === 'number') ctx.continueAsNew(next, false);
  return count;
}

/** Sets a custom status and completes with its input. */
async function* echo(ctx: OrchestrationContext, input: unknown): AsyncGenerator<Task<unknown>, unknown, unknown> {
  ctx.setCustomStatus('echoing');
  yield after(ctx, 1);
  return input;
}

/** Three `record` activities, a durable timer of `timerMs`, then `echo` as a sub-workflow (`<id>-sub`): a trace's shape. */
async function* traced(ctx: OrchestrationContext, input: { timerMs: number }): AsyncGenerator<Task<unknown>, unknown, unknown> {
  for (let step = 1; step <= 3; step++) yield ctx.callActivity('record', { step, sleepMs: 0 });
  yield after(ctx, input.timerMs);
  return yield ctx.callSubOrchestrator('echo', 'sub', `${ctx.instanceId}-sub`);
}

export function registerTestWorkflows(worker: TaskHubGrpcWorker, report: Report): void {
  worker.addNamedOrchestrator('steps', steps);
  worker.addNamedOrchestrator('fanout', fanout);
  worker.addNamedOrchestrator('approval', approval);
  worker.addNamedOrchestrator('sleeper', sleeper);
  worker.addNamedOrchestrator('failing', failing);
  worker.addNamedOrchestrator('parent', parent);
  worker.addNamedOrchestrator('rounds', rounds);
  worker.addNamedOrchestrator('chapters', chapters);
  worker.addNamedOrchestrator('echo', echo);
  worker.addNamedOrchestrator('traced', traced);

  // Reports start and finish, with a fresh token per execution: a re-run (at-least-once) is visible to the test.
  worker.addNamedActivity('record', async (ctx: ActivityContext, input: { step: number; sleepMs: number }) => {
    const base = { instanceId: ctx.orchestrationId, taskId: ctx.taskId, step: input.step };
    report({ kind: 'activity-start', ...base });
    if (input.sleepMs > 0) await sleep(input.sleepMs);
    const token = `${input.step}:${randomUUID()}`;
    report({ kind: 'activity-done', ...base, token });
    return token;
  });
  worker.addNamedActivity('noop', (_ctx: ActivityContext, input: unknown) => input);
  worker.addNamedActivity('explode', (_ctx: ActivityContext, message: string) => {
    throw new Error(message);
  });
}
