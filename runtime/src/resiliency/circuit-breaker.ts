/**
 * One target's circuit breaker (the model Dapr's users know, from sony/gobreaker): closed lets every call through
 * and counts; when the trip condition holds it opens and fails calls at once; after its timeout it is half-open
 * and lets `maxRequests` probes through; a probe's success closes it, a probe's failure opens it again.
 *
 * No timers: the move from open to half-open, and the closed state's interval reset, are judged by the clock on
 * the next call (or read of `state`). Each state change starts a new generation with fresh counts; a call that
 * began in an earlier generation does not count in the new one, so a slow failure from before a reset cannot trip it.
 */
import { RuntimeError } from '../errors/runtime-error.js';
import type { CircuitBreakerPolicy } from './resiliency-spec.js';
import type { TripCounts } from './trip-expression.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerCounts extends TripCounts {
  readonly totalSuccesses: number;
  readonly consecutiveSuccesses: number;
}

export interface BreakerStateChange {
  readonly target: string;
  readonly policy: string;
  readonly from: BreakerState;
  readonly to: BreakerState;
}

/** For metrics: the state, this generation's counts, and totals since start. */
export interface BreakerStats {
  readonly state: BreakerState;
  readonly counts: BreakerCounts;
  /** Times it opened (from closed or from half-open). */
  readonly opened: number;
  /** Calls failed at once because it was open, or half-open with its probes taken. */
  readonly rejected: number;
}

/** What the owner of breakers gives each of them. */
export interface BreakerHooks {
  /** Called on every change of state (a log line, a metric). */
  readonly onStateChange?: (change: BreakerStateChange) => void;
  /** @default Date.now */
  readonly now?: () => number;
}

export interface CircuitBreakerOptions extends BreakerHooks {
  readonly policy: CircuitBreakerPolicy;
  /** Named in errors and state changes: `app 'orders'`. */
  readonly target: string;
}

const ZERO: BreakerCounts = { requests: 0, totalFailures: 0, consecutiveFailures: 0, totalSuccesses: 0, consecutiveSuccesses: 0 };

export class CircuitBreaker {
  readonly target: string;
  readonly policy: CircuitBreakerPolicy;
  #state: BreakerState = 'closed';
  #counts: BreakerCounts = ZERO;
  #generation = 0;
  /** closed: when the counts restart (0: never); open: when it turns half-open. */
  #until: number;
  #opened = 0;
  #rejected = 0;
  readonly #onStateChange: ((change: BreakerStateChange) => void) | undefined;
  readonly #now: () => number;

  constructor(opts: CircuitBreakerOptions) {
    this.target = opts.target;
    this.policy = opts.policy;
    this.#onStateChange = opts.onStateChange;
    this.#now = opts.now ?? Date.now;
    this.#until = this.#closedUntil(this.#now());
  }

  get state(): BreakerState {
    this.#catchUp(this.#now());
    return this.#state;
  }

  stats(): BreakerStats {
    return { state: this.state, counts: this.#counts, opened: this.#opened, rejected: this.#rejected };
  }

  /** Runs `work` when the breaker lets it through, counting its outcome; else fails with ERR_CIRCUIT_BREAKER_OPEN. */
  async execute<T>(work: () => Promise<T>): Promise<T> {
    const generation = this.#admit();
    let result: T;
    try {
      result = await work();
    } catch (err) {
      this.#settle(generation, false);
      throw err;
    }
    this.#settle(generation, true);
    return result;
  }

  #admit(): number {
    this.#catchUp(this.#now());
    const probesTaken = this.#state === 'half-open' && this.#counts.requests >= this.policy.maxRequests;
    if (this.#state === 'open' || probesTaken) {
      this.#rejected++;
      const why = probesTaken ? `is half-open and its ${this.policy.maxRequests} probe call(s) are in flight` : 'is open';
      throw new RuntimeError('ERR_CIRCUIT_BREAKER_OPEN', `circuit breaker '${this.policy.name}' for ${this.target} ${why}: the call was not made`);
    }
    this.#counts = { ...this.#counts, requests: this.#counts.requests + 1 };
    return this.#generation;
  }

  #settle(generation: number, ok: boolean): void {
    const now = this.#now();
    this.#catchUp(now);
    if (generation !== this.#generation) return;
    const c = this.#counts;
    this.#counts = ok
      ? { ...c, totalSuccesses: c.totalSuccesses + 1, consecutiveSuccesses: c.consecutiveSuccesses + 1, consecutiveFailures: 0 }
      : { ...c, totalFailures: c.totalFailures + 1, consecutiveFailures: c.consecutiveFailures + 1, consecutiveSuccesses: 0 };
    if (this.#state === 'half-open') this.#moveTo(ok ? 'closed' : 'open', now);
    else if (!ok && this.policy.tripRule(this.#counts)) this.#moveTo('open', now);
  }

  /** Applies what the passing of time did: open past its timeout is half-open; closed past its interval restarts. */
  #catchUp(now: number): void {
    if (this.#state === 'open' && now >= this.#until) this.#moveTo('half-open', now);
    else if (this.#state === 'closed' && this.#until > 0 && now >= this.#until) this.#newGeneration(now);
  }

  #moveTo(to: BreakerState, now: number): void {
    const from = this.#state;
    this.#state = to;
    if (to === 'open') this.#opened++;
    this.#newGeneration(now);
    this.#onStateChange?.({ target: this.target, policy: this.policy.name, from, to });
  }

  #newGeneration(now: number): void {
    this.#generation++;
    this.#counts = ZERO;
    this.#until = this.#state === 'open' ? now + this.policy.timeoutMs : this.#state === 'closed' ? this.#closedUntil(now) : 0;
  }

  #closedUntil(now: number): number {
    return this.policy.intervalMs > 0 ? now + this.policy.intervalMs : 0;
  }
}
