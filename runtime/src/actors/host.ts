import type { Registry } from 'prom-client';
import type { ComponentManager } from '../components/manager.js';
import { metadataValue, type ComponentSpec } from '../components/spec.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { isTransactional } from '../components/contracts/state-store.js';
import type { ReplicaSet } from './placement/replica-set.js';
import { AppChannel } from './app-channel.js';
import { multiHostRuntime, singleHostRuntime, type ActorPlacementOptions, type PlacedRuntime } from './placement/multi-host.js';
import { isMultiHostStore } from '../state/placement-store.js';
import type { ActorRuntime, ActorTypeStatus } from './types.js';
import { INTERNAL_ACTOR_TYPE_PREFIX, isInternalActorType } from './public-actors.js';

export interface ActorHostOptions {
  readonly appId: string;
  readonly components: ComponentManager;
  readonly log: Logger;
  readonly metrics: Registry;
  readonly idleTimeoutMs: number;
  /** 0: no app channel. */
  readonly appPort: number;
  /** The largest answer read from the app (`--max-request-size`). */
  readonly appMaxAnswerBytes: number;
  /** How long start-up waits for the app to answer `/dapr/config`. */
  readonly appConfigWaitMs: number;
  readonly drainTimeoutMs: number;
  /** Several replicas (multi-host stores only): see docs/actors.md "Placement". */
  readonly placement: Pick<ActorPlacementOptions, 'internal' | 'leaseTtlMs' | 'heartbeatIntervalMs' | 'workers' | 'peerHandlers'>;
}

/**
 * The svcd part that owns the actor runtime: finds the actor state store among the loaded components (exactly
 * one, transactional), registers the app's actor types, and starts/stops the runtime. Without an actor state
 * store the process runs without actors and the actor API answers ERR_ACTOR_RUNTIME_NOT_FOUND.
 */
export class ActorHost {
  readonly name = 'actors';
  #placed: PlacedRuntime | undefined;
  #startedLog: Record<string, unknown> = {};
  #storeSpec: ComponentSpec | undefined;

  constructor(private readonly opts: ActorHostOptions) {}

  /** The runtime once started with an actor state store (calls run where their actor is owned); undefined otherwise. */
  get runtime(): ActorRuntime | undefined {
    return this.#placed?.routed;
  }

  /** How the workflow engine meets the other replicas; undefined without an actor state store. */
  get replicas(): ReplicaSet | undefined {
    return this.#placed?.replicas;
  }

  /** The actor state store's spec once started with one. */
  get storeSpec(): ComponentSpec | undefined {
    return this.#storeSpec;
  }

  requireRuntime(): ActorRuntime {
    if (!this.#placed) {
      throw new RuntimeError('ERR_ACTOR_RUNTIME_NOT_FOUND', 'the actor runtime is not running: no state store component is marked actorStateStore: "true"');
    }
    return this.#placed.routed;
  }

  async start(): Promise<void> {
    const { log } = this.opts;
    const marked = this.opts.components.list('state').filter((c) => metadataValue(c.spec, 'actorStateStore')?.toLowerCase() === 'true');
    if (marked.length === 0) {
      log.info('no state store is marked actorStateStore: "true"; actors and workflows are disabled');
      return;
    }
    if (marked.length > 1) {
      throw new RuntimeError('ERR_ACTOR_STATE_STORE_INVALID', `only one state store may be marked actorStateStore: "true"; found ${marked.map((c) => c.spec.name).join(', ')}`);
    }
    const chosen = marked[0]!;
    this.#storeSpec = chosen.spec;
    const store = this.opts.components.stateStore(chosen.spec.name)?.store;
    if (!store || !isTransactional(store)) {
      throw new RuntimeError('ERR_ACTOR_STATE_STORE_INVALID', `the actor state store ${chosen.spec.name} (${chosen.spec.type}) is not transactional; actors need a store with the TRANSACTIONAL feature`);
    }
    let idleTimeoutMs = this.opts.idleTimeoutMs;
    let appTypes: readonly string[] = [];
    const channel = this.opts.appPort !== 0 ? new AppChannel(this.opts.appPort, log, this.opts.appMaxAnswerBytes) : undefined;
    if (channel) {
      const config = await channel.readActorConfig(this.opts.appConfigWaitMs);
      // svcd's own types are out of the app's reach (public-actors.ts): an app cannot host one either.
      appTypes = config.entities.filter((type) => !isInternalActorType(type));
      const refused = config.entities.filter(isInternalActorType);
      if (refused.length > 0) log.warn({ actorTypes: refused, prefix: INTERNAL_ACTOR_TYPE_PREFIX }, 'actor types with the prefix reserved for svcd itself are not hosted');
      idleTimeoutMs = config.actorIdleTimeoutMs ?? idleTimeoutMs;
    }
    const placementOptions: ActorPlacementOptions = {
      ...this.opts.placement,
      appId: this.opts.appId,
      storeName: `state store ${chosen.spec.name} (${chosen.spec.type})`,
      log: log.child({ part: 'actors' }),
      metrics: this.opts.metrics,
      idleTimeoutMs,
      shutdownGraceMs: this.opts.drainTimeoutMs,
    };
    let placed: PlacedRuntime;
    if (isMultiHostStore(store)) placed = await multiHostRuntime(store, placementOptions);
    else {
      placed = singleHostRuntime(store, placementOptions);
      if (chosen.origin === 'pluggable') {
        log.warn({ actorStateStore: chosen.spec.name }, 'the actor state store is a pluggable component, which cannot arbitrate between replicas: actors run single-host; run ONE replica of this app');
      }
    }
    if (channel) for (const type of appTypes) placed.local.registerType(type, channel.actorFactory(type));
    this.#placed = placed;
    this.#startedLog = { actorStateStore: chosen.spec.name, appActorTypes: appTypes, idleTimeoutMs, placement: isMultiHostStore(store) ? 'multi-host' : 'single-host' };
  }

  /**
   * Starts serving actors: joins the other replicas and takes partitions. Called once every in-process actor type
   * is registered (the workflow engine's), so no replica routes a call here for a type not registered yet.
   */
  async serve(): Promise<void> {
    if (!this.#placed) return;
    await this.#placed.start();
    this.opts.log.info(this.#startedLog, 'actor runtime started');
  }

  async stop(): Promise<void> {
    const runtime = this.#placed;
    if (!runtime) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.opts.drainTimeoutMs)));
    const outcome = await Promise.race([runtime.stop().then(() => 'stopped' as const), timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout') this.opts.log.warn({ waitedMs: this.opts.drainTimeoutMs }, 'actor turns still running after the shutdown grace period; stopping anyway');
    this.#placed = undefined;
  }

  /** `/v1.0/metadata` fields: Dapr's `actors` list and `actorRuntime` summary. */
  metadata(): Record<string, unknown> {
    const actors: ActorTypeStatus[] = this.#placed?.local.status() ?? [];
    return {
      actors,
      actorRuntime: {
        runtimeStatus: this.#placed ? 'RUNNING' : 'DISABLED',
        activeActors: actors,
        hostReady: this.#placed !== undefined,
        placement: '',
        ...this.#placed?.metadata(),
      },
    };
  }
}
