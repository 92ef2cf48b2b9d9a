import type { BreakerHooks, CircuitBreaker } from './circuit-breaker.js';
import { targetPolicy, type TargetPolicy } from './policy.js';
import type { ActorTargetPolicies } from './resiliency-spec.js';

/** How errors and state changes name an actor type. */
const actorTypeLabel = (actorType: string): string => `actor type '${actorType}'`;

/**
 * An actor type's policies. Its circuit breaker counts for the whole type, for each actor id, or both
 * (`circuitBreakerScope`); breakers per id are kept for the `circuitBreakerCacheSize` ids used last, since ids
 * are unbounded (an id dropped and used again starts closed, as in Dapr).
 */
export class ActorPolicies {
  readonly spec: ActorTargetPolicies;
  /** The type's own policy: with the type's breaker when the scope has one, else timeout and retry only. */
  readonly forType: TargetPolicy;
  readonly #actorType: string;
  readonly #hooks: BreakerHooks;
  readonly #byId = new Map<string, TargetPolicy>();

  constructor(actorType: string, spec: ActorTargetPolicies, hooks: BreakerHooks) {
    this.spec = spec;
    this.#actorType = actorType;
    this.#hooks = hooks;
    const typeSpec = spec.breakerScope === 'id' ? { ...spec, circuitBreaker: undefined } : spec;
    this.forType = targetPolicy(actorTypeLabel(actorType), typeSpec, hooks);
  }

  /** The policy for calls to one actor: the same object for an id while it is among the ones kept. */
  forId(id: string): TargetPolicy {
    if (this.spec.breakerScope === 'type' || !this.spec.circuitBreaker) return this.forType;
    const policy = this.#byId.get(id) ?? targetPolicy(`actor '${this.#actorType}/${id}'`, this.spec, this.#hooks, this.forType.breakers);
    this.#byId.delete(id);
    this.#byId.set(id, policy); // (re-)inserted last: the Map's order is least recently used first
    if (this.#byId.size > this.spec.breakerCacheSize) this.#byId.delete(this.#byId.keys().next().value!);
    return policy;
  }

  /** Every breaker alive now: the type's, and those of the ids kept. */
  breakers(): CircuitBreaker[] {
    return [...new Set([this.forType, ...this.#byId.values()].flatMap((p) => p.breakers))];
  }
}
