import type { Registry } from 'prom-client';
import type { ComponentManager } from '../components/manager.js';
import { metadataValue } from '../components/spec.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { isTransactional } from '../state/store.js';
import { AppChannel } from './app-channel.js';
import { LocalActorRuntime } from './runtime.js';
import type { ActorRuntime, ActorTypeStatus } from './types.js';

export interface ActorHostOptions {
  readonly appId: string;
  readonly components: ComponentManager;
  readonly log: Logger;
  readonly metrics: Registry;
  readonly idleTimeoutMs: number;
  /** 0: no app channel. */
  readonly appPort: number;
  /** How long start-up waits for the app to answer `/dapr/config`. */
  readonly appConfigWaitMs: number;
  readonly drainTimeoutMs: number;
}

/**
 * The svcd part that owns the actor runtime: finds the actor state store among the loaded components (exactly
 * one, transactional), registers the app's actor types, and starts/stops the runtime. Without an actor state
 * store the process runs without actors and the actor API answers ERR_ACTOR_RUNTIME_NOT_FOUND.
 */
export class ActorHost {
  readonly name = 'actors';
  #runtime: LocalActorRuntime | undefined;

  constructor(private readonly opts: ActorHostOptions) {}

  /** The runtime once started with an actor state store; undefined otherwise. */
  get runtime(): ActorRuntime | undefined {
    return this.#runtime;
  }

  requireRuntime(): ActorRuntime {
    if (!this.#runtime) {
      throw new RuntimeError('ERR_ACTOR_RUNTIME_NOT_FOUND', 'the actor runtime is not running: no state store component is marked actorStateStore: "true"');
    }
    return this.#runtime;
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
    const store = this.opts.components.stateStore(chosen.spec.name)?.store;
    if (!store || !isTransactional(store)) {
      throw new RuntimeError('ERR_ACTOR_STATE_STORE_INVALID', `the actor state store ${chosen.spec.name} (${chosen.spec.type}) is not transactional; actors need a store with the TRANSACTIONAL feature`);
    }
    let idleTimeoutMs = this.opts.idleTimeoutMs;
    let appTypes: readonly string[] = [];
    const channel = this.opts.appPort !== 0 ? new AppChannel(this.opts.appPort, log) : undefined;
    if (channel) {
      const config = await channel.readActorConfig(this.opts.appConfigWaitMs);
      appTypes = config.entities;
      idleTimeoutMs = config.actorIdleTimeoutMs ?? idleTimeoutMs;
    }
    const runtime = new LocalActorRuntime({ appId: this.opts.appId, store, log: log.child({ part: 'actors' }), metrics: this.opts.metrics, idleTimeoutMs });
    if (channel) for (const type of appTypes) runtime.registerType(type, channel.actorFactory(type));
    await runtime.start();
    this.#runtime = runtime;
    log.info({ actorStateStore: chosen.spec.name, appActorTypes: appTypes, idleTimeoutMs }, 'actor runtime started');
  }

  async stop(): Promise<void> {
    const runtime = this.#runtime;
    if (!runtime) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.opts.drainTimeoutMs)));
    const outcome = await Promise.race([runtime.stop().then(() => 'stopped' as const), timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout') this.opts.log.warn({ waitedMs: this.opts.drainTimeoutMs }, 'actor turns still running after the shutdown grace period; stopping anyway');
    this.#runtime = undefined;
  }

  /** `/v1.0/metadata` fields: Dapr's `actors` list and `actorRuntime` summary. */
  metadata(): Record<string, unknown> {
    const actors: ActorTypeStatus[] = this.#runtime?.status() ?? [];
    return {
      actors,
      actorRuntime: {
        runtimeStatus: this.#runtime ? 'RUNNING' : 'DISABLED',
        activeActors: actors,
        hostReady: this.#runtime !== undefined,
        placement: this.#runtime ? 'single-host' : '',
      },
    };
  }
}
