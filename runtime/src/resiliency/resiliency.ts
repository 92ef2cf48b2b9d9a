import { ActorPolicies } from './actor-policies.js';
import type { BreakerHooks, BreakerState, CircuitBreaker } from './circuit-breaker.js';
import { NO_RESILIENCY, type LoadedResiliency } from './load-resiliency.js';
import { TargetPolicy, targetPolicy } from './policy.js';
import type { ActorBreakerScope, TargetPolicies } from './resiliency-spec.js';

/** Given to every circuit breaker: `onStateChange` (a log line, a metric) and the clock. */
export type ResiliencyOptions = BreakerHooks;

export type ComponentDirection = 'outbound' | 'inbound';

/** One target as `/v1.0/metadata` shows it: policy names, and its breaker's state now. */
export interface TargetDescription {
  readonly kind: 'app' | 'actor' | 'component';
  readonly name: string;
  readonly direction?: ComponentDirection;
  readonly timeout?: string;
  readonly retry?: string;
  readonly circuitBreaker?: string;
  readonly circuitBreakerScope?: ActorBreakerScope;
  /** The target's breaker (an actor type's own; its ids' breakers are not listed). */
  readonly circuitBreakerState?: BreakerState;
}

export interface ResiliencyDescription {
  readonly resources: readonly string[];
  readonly targets: readonly TargetDescription[];
}

/**
 * The policies of an app's Resiliency resources, by target. Each target's policy, and so its circuit breaker, is
 * made once: every call to a target goes through the same breaker, whose state lasts as long as the process.
 * A target that no resource names gets a policy that runs the attempt once.
 */
/**
 * What a target without a policy gets: one shared instance, since the state and invocation paths ask for their
 * target's policy on every request. It never times out or opens, so its target is never named.
 */
const NO_POLICY = new TargetPolicy({ target: 'a target without a policy' });

export class Resiliency {
  readonly #loaded: LoadedResiliency;
  readonly #apps: ReadonlyMap<string, TargetPolicy>;
  readonly #actors: ReadonlyMap<string, ActorPolicies>;
  readonly #components: Readonly<Record<ComponentDirection, ReadonlyMap<string, TargetPolicy>>>;

  constructor(loaded: LoadedResiliency = NO_RESILIENCY, opts: ResiliencyOptions = {}) {
    this.#loaded = loaded;
    const policies = (targets: ReadonlyMap<string, TargetPolicies>, label: (name: string) => string): Map<string, TargetPolicy> =>
      new Map([...targets].map(([name, spec]) => [name, targetPolicy(label(name), spec, opts)]));
    this.#apps = policies(loaded.targets.apps, appLabel);
    this.#components = {
      outbound: policies(loaded.targets.outbound, (name) => componentLabel(name, 'outbound')),
      inbound: policies(loaded.targets.inbound, (name) => componentLabel(name, 'inbound')),
    };
    this.#actors = new Map([...loaded.targets.actors].map(([type, spec]) => [type, new ActorPolicies(type, spec, opts)]));
  }

  /** Service invocation of `appId`. */
  forApp(appId: string): TargetPolicy {
    return this.#apps.get(appId) ?? NO_POLICY;
  }

  /** Calls to actors of `actorType`; with `actorId`, the breaker of that id too when the type's scope is id or both. */
  forActor(actorType: string, actorId?: string): TargetPolicy {
    const actor = this.#actors.get(actorType);
    if (!actor) return NO_POLICY;
    return actorId === undefined ? actor.forType : actor.forId(actorId);
  }

  /** Calls to a component (`outbound`), or from it to the app: pub/sub deliveries and input bindings (`inbound`). */
  forComponent(name: string, direction: ComponentDirection): TargetPolicy {
    return this.#components[direction].get(name) ?? NO_POLICY;
  }

  /** Every circuit breaker alive now, for metrics (`state`, `stats()`). */
  breakers(): CircuitBreaker[] {
    const policies = [...this.#apps.values(), ...this.#components.outbound.values(), ...this.#components.inbound.values()];
    return [...policies.flatMap((p) => p.breakers), ...[...this.#actors.values()].flatMap((a) => a.breakers())];
  }

  describe(): ResiliencyDescription {
    const row = (kind: TargetDescription['kind'], name: string, policy: TargetPolicy): TargetDescription => ({
      kind,
      name,
      timeout: policy.timeout?.name,
      retry: policy.retry?.name,
      circuitBreaker: policy.breakers[0]?.policy.name,
      circuitBreakerState: policy.breakers[0]?.state,
    });
    return {
      resources: this.#loaded.resources,
      targets: [
        ...[...this.#apps].map(([name, p]) => row('app', name, p)),
        ...[...this.#actors].map(([type, a]) => ({
          ...row('actor', type, a.forType),
          circuitBreaker: a.spec.circuitBreaker?.name,
          circuitBreakerScope: a.spec.circuitBreaker && a.spec.breakerScope,
        })),
        ...(['outbound', 'inbound'] as const).flatMap((direction) =>
          [...this.#components[direction]].map(([name, p]) => ({ ...row('component', name, p), direction })),
        ),
      ],
    };
  }
}

const appLabel = (appId: string): string => `app '${appId}'`;
const componentLabel = (name: string, direction: ComponentDirection): string => `component '${name}' (${direction})`;
