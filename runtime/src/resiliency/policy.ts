import { CircuitBreaker, type BreakerHooks } from './circuit-breaker.js';
import type { RetryPolicy, TargetPolicies, TimeoutPolicy } from './resiliency-spec.js';
import { runWithRetries, statusMatches } from './retry.js';
import { runWithTimeout } from './timeout.js';

const NEVER_ABORTED = new AbortController().signal;

export interface RunOptions {
  /**
   * Whether a failed attempt may be made again. Only a call that provably did not reach the target, or that is
   * idempotent, is: the caller knows which (docs/resiliency.md, "Which calls are retried").
   */
  retryable(err: unknown): boolean;
  /** The caller giving up: the attempt's signal is aborted and no further attempt is made. */
  signal?: AbortSignal;
}

export interface TargetPolicyParts {
  /** Named in errors: `app 'orders'`, `component 'statestore' (outbound)`. */
  readonly target: string;
  readonly timeout?: TimeoutPolicy;
  readonly retry?: RetryPolicy;
  /** Outermost first: an actor's type breaker, then its id's. */
  readonly breakers?: readonly CircuitBreaker[];
}

/**
 * The policies of one target, applied outermost to innermost: retries, circuit breaker(s), a timeout per attempt.
 * With no policy it runs the attempt once, as if it were not there.
 */
export class TargetPolicy {
  readonly target: string;
  readonly timeout: TimeoutPolicy | undefined;
  readonly retry: RetryPolicy | undefined;
  readonly breakers: readonly CircuitBreaker[];

  constructor(parts: TargetPolicyParts) {
    this.target = parts.target;
    this.timeout = parts.timeout;
    this.retry = parts.retry;
    this.breakers = parts.breakers ?? [];
  }

  /** No timeout, retry or breaker: `run` is the call itself, and callers may skip wrapping anything. */
  get isEmpty(): boolean {
    return !this.timeout && !this.retry && this.breakers.length === 0;
  }

  run<T>(attempt: (signal: AbortSignal) => Promise<T>, opts: RunOptions): Promise<T> {
    // Most targets have no policy: no signal of its own, no timer, nothing but the call (an AbortController per
    // call showed in a service invocation profile).
    if (this.isEmpty) return attempt(opts.signal ?? NEVER_ABORTED);
    const timed = (): Promise<T> => runWithTimeout(attempt, { timeout: this.timeout, target: this.target, signal: opts.signal });
    const guarded = this.breakers.reduceRight<() => Promise<T>>((inner, breaker) => () => breaker.execute(inner), timed);
    return runWithRetries(guarded, { retry: this.retry, retryable: (err) => opts.retryable(err), signal: opts.signal });
  }

  /**
   * Whether the retry policy's `matching` list takes this status (true when it has no list for the protocol), for
   * callers whose failures carry one; no retry policy retries nothing.
   */
  retriesStatus(protocol: 'http' | 'grpc', code: number): boolean {
    return this.retry !== undefined && statusMatches(this.retry.matching[protocol], code);
  }
}

/** A target's policy from its spec: its own breaker (when it names one) inside the `outer` ones (an actor type's). */
export function targetPolicy(
  target: string,
  spec: Pick<TargetPolicies, 'timeout' | 'retry' | 'circuitBreaker'>,
  hooks: BreakerHooks,
  outer: readonly CircuitBreaker[] = [],
): TargetPolicy {
  const policy = spec.circuitBreaker;
  const own = policy ? [new CircuitBreaker({ ...hooks, policy, target })] : [];
  return new TargetPolicy({ target, timeout: spec.timeout, retry: spec.retry, breakers: [...outer, ...own] });
}
