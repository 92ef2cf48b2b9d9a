/* eslint-disable @typescript-eslint/require-await -- the SDK runs only async generators as workflows, and a workflow must never await anything itself (replay must be deterministic) */
import type { OrchestrationContext } from '@dapr/durabletask-js';
import type { Task } from '@dapr/durabletask-js/task/task.js';

/** How often and how patiently to retry an activity. */
export interface RetryPolicy {
  maxAttempts: number;
  firstDelayMs: number;
  backoffFactor: number;
  maxDelayMs: number;
}

/**
 * Calls an activity, retrying failures after a durable timer with exponential backoff. `@dapr/durabletask-js`
 * has no retry option, so the policy lives in the workflow: it is deterministic (delays derive from the attempt
 * number and the replay-safe clock), and the waits survive a svcd restart because they are durable timers.
 * The activity receives `{ ...input, attempt }`. Use with `yield*`.
 */
export async function* callWithRetry<TInput extends object, TOutput>(
  ctx: OrchestrationContext,
  activity: string,
  input: TInput,
  policy: RetryPolicy,
): AsyncGenerator<Task<unknown>, TOutput, unknown> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (yield ctx.callActivity(activity, { ...input, attempt })) as TOutput;
    } catch (err) {
      if (attempt >= policy.maxAttempts) throw err;
      const delay = Math.min(policy.firstDelayMs * policy.backoffFactor ** (attempt - 1), policy.maxDelayMs);
      yield ctx.createTimer(new Date(ctx.currentUtcDateTime.getTime() + delay));
    }
  }
}
