/**
 * How svcd delivers to the app (pub/sub subscriptions and input bindings alike): how many at once, how often and
 * how long it retries, how long it waits for an answer. Read from the subscription's or the binding's metadata.
 */
import { parseDuration } from '../config/parse-values.js';
import { RuntimeError } from '../errors/runtime-error.js';

export interface DeliveryPolicy {
  readonly concurrency: number;
  readonly maxDeliveryAttempts: number;
  readonly retryInitialMs: number;
  readonly retryMaxMs: number;
  readonly timeoutMs: number;
  /** Deliver the message's bytes as they are on the topic (wrapped with `data_base64`), not a CloudEvent of it. */
  readonly rawPayload: boolean;
}

const DEFAULTS: DeliveryPolicy = { concurrency: 10, maxDeliveryAttempts: 10, retryInitialMs: 500, retryMaxMs: 10_000, timeoutMs: 60_000, rawPayload: false };

/**
 * The delivery policy from a subscription's (or an input binding's) metadata (names in docs/pubsub.md); bad values
 * are `code`, naming `source`.
 */
export function deliveryPolicy(m: Readonly<Record<string, string>>, source: string, code: 'ERR_PUBSUB_SUBSCRIPTION_INVALID' | 'ERR_COMPONENT_SPEC_INVALID'): DeliveryPolicy {
  const fail = (name: string, problem: string): never => {
    throw new RuntimeError(code, `${source}: metadata ${name} '${m[name]}' ${problem}`);
  };
  const whole = (name: string, fallback: number, min: number): number => {
    const text = m[name];
    if (text === undefined || text === '') return fallback;
    const n = Number(text);
    return Number.isInteger(n) && n >= min ? n : fail(name, `must be a whole number of at least ${min}`);
  };
  const duration = (name: string, fallback: number): number => {
    const text = m[name];
    if (text === undefined || text === '') return fallback;
    try {
      return parseDuration(text);
    } catch {
      return fail(name, 'is not a duration (examples: 5s, 250ms, 1m30s)');
    }
  };
  return {
    concurrency: whole('concurrency', DEFAULTS.concurrency, 1),
    maxDeliveryAttempts: whole('maxDeliveryAttempts', DEFAULTS.maxDeliveryAttempts, 1),
    retryInitialMs: duration('retryInitialInterval', DEFAULTS.retryInitialMs),
    retryMaxMs: duration('retryMaxInterval', DEFAULTS.retryMaxMs),
    timeoutMs: duration('deliveryTimeout', DEFAULTS.timeoutMs),
    rawPayload: m.rawPayload === 'true',
  };
}

/** The wait after failed attempt `attempt` (1-based): doubling from the initial interval, capped. */
export function retryDelay(policy: Pick<DeliveryPolicy, 'retryInitialMs' | 'retryMaxMs'>, attempt: number): number {
  return Math.min(policy.retryMaxMs, policy.retryInitialMs * 2 ** (attempt - 1));
}

