import { setTimeout as sleep } from 'node:timers/promises';
import { isRuntimeError } from '../errors/runtime-error.js';
import type { RetryPolicy, StatusRanges } from './resiliency-spec.js';

/**
 * The wait before retry `retry` (1 for the first): constant waits `duration`; exponential starts at
 * `initialInterval`, doubles, and is spread ±50% at random (so callers that failed together do not retry
 * together), never longer than `maxInterval`.
 */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  if (policy.policy === 'constant') return policy.durationMs;
  const base = Math.min(policy.maxIntervalMs, policy.initialIntervalMs * 2 ** (retry - 1));
  return Math.min(policy.maxIntervalMs, Math.round(base * (0.5 + random())));
}

/** Does a `matching` list hold `code`? No list holds every code (Dapr: "retries on all errors"). */
export function statusMatches(ranges: StatusRanges | undefined, code: number): boolean {
  return ranges === undefined || ranges.some(([from, to]) => code >= from && code <= to);
}

export interface RetryOptions {
  readonly retry?: RetryPolicy;
  /** Whether a failure may be tried again; an open circuit breaker's is, always: such a call was never made. */
  readonly retryable: (err: unknown) => boolean;
  /** The caller giving up: no further attempt, and the wait between two is cut short. */
  readonly signal?: AbortSignal;
}

/** Calls `call` until it succeeds, the policy's retries are spent, a failure is not retryable, or the caller aborts. */
export async function runWithRetries<T>(call: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const policy = opts.retry;
  for (let retry = 1; ; retry++) {
    try {
      return await call();
    } catch (err) {
      const retriesLeft = policy !== undefined && (policy.maxRetries < 0 || retry <= policy.maxRetries);
      const retryable = isRuntimeError(err, 'ERR_CIRCUIT_BREAKER_OPEN') || opts.retryable(err);
      if (!retriesLeft || !retryable || opts.signal?.aborted) throw err;
      // an open breaker fails at once, so even it waits the backoff: retrying it in a tight loop would spin
      await sleep(backoffDelay(policy, retry), undefined, { signal: opts.signal, ref: false });
    }
  }
}
