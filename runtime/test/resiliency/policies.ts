/** Policies for the runner tests, as the parser makes them, with durations of tens of milliseconds. */
import type { CircuitBreakerPolicy, RetryPolicy, TimeoutPolicy } from '../../src/resiliency/resiliency-spec.js';
import { compileTrip } from '../../src/resiliency/trip-expression.js';

export const retryPolicy = (over: Partial<RetryPolicy> = {}): RetryPolicy => ({
  name: 'retry',
  policy: 'constant',
  durationMs: 10,
  initialIntervalMs: 10,
  maxIntervalMs: 1000,
  maxRetries: 3,
  matching: {},
  ...over,
});

export const breakerPolicy = (over: Partial<Omit<CircuitBreakerPolicy, 'tripRule'>> = {}): CircuitBreakerPolicy => {
  const trip = over.trip ?? 'consecutiveFailures >= 3';
  return { name: 'cb', maxRequests: 1, intervalMs: 0, timeoutMs: 50, ...over, trip, tripRule: compileTrip(trip) };
};

export const timeoutPolicy = (ms: number): TimeoutPolicy => ({ name: 'quick', ms });

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A real async function that fails its first `failures` calls (after a tick of I/O-like delay), then answers 'ok'. */
export function flaky(failures: number): { calls: number; fn: () => Promise<string> } {
  const state = {
    calls: 0,
    fn: async (): Promise<string> => {
      state.calls++;
      await pause(1);
      if (state.calls <= failures) throw new Error(`failure ${state.calls}`);
      return 'ok';
    },
  };
  return state;
}
