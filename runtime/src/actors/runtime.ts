import type { Registry } from 'prom-client';
import { RuntimeError, ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import type { TransactionOperation, TransactionalStateStore } from '../components/contracts/state-store.js';
import { Activation, type ActivationHost, type Turn } from './activation.js';
import { RealClock } from './clock.js';
import { IdleSweeper } from './idle-sweeper.js';
import { ActorIndexes } from './actor-indexes.js';
import { ActorKeys, assertValidActorId, assertValidActorType } from './keys.js';
import { ActorMetrics, type TurnKind } from './metrics.js';
import { SingleHostPlacement } from './placement.js';
import { LiveActors } from './live-actors.js';
import { ActorReminders } from './actor-reminders.js';
import { notOwnerError } from './reminder-table.js';
import { ActorStateCache } from './state-cache.js';
import { CoalescedReads } from './coalesced-reads.js';
import { TurnContext } from './turn-context.js';
import type {
  ActorFactory,
  ActorRuntime,
  ActorStateOperation,
  ActorTypeOptions,
  ActorTypeStatus,
  Clock,
  IndexEntry,
  IndexPage,
  Placement,
  ReminderInfo,
  ReminderOptions,
  TimerOptions,
} from './types.js';

export const DEFAULT_ACTOR_IDLE_TIMEOUT_MS = 60 * 60_000;
const STOP_DEACTIVATION_SLICE = 256;

export interface LocalActorRuntimeOptions {
  readonly appId: string;
  readonly store: TransactionalStateStore;
  /** The store's component name, for errors. */
  readonly storeName?: string;
  readonly log: Logger;
  readonly metrics: Registry;
  readonly clock?: Clock;
  readonly placement?: Placement;
  /** Default idle time before deactivation (`--actor-idle-timeout`). */
  readonly idleTimeoutMs?: number;
  /**
   * Reminder turns queued or running at once (default 512). After an outage thousands of reminders can be due
   * together; the rest wait in due-time order instead of activating every actor (and calling the app) at once.
   */
  readonly maxReminderTurnsInFlight?: number;
  /** Called when the store refused a commit because this host no longer owns the partition (a metric). */
  readonly onFenced?: () => void;
}

interface RegisteredType {
  readonly factory: ActorFactory;
  readonly idleTimeoutMs: number;
  readonly uncachedKeyPrefixes: readonly string[];
  readonly leaseIdle: ActorTypeOptions['leaseIdle'];
}

/**
 * The single-process actor runtime: activations, turns and their commits, idle deactivation, and ownership
 * partitions coming and going; reminders are `ActorReminders`'. See types.ts for the contract and docs/actors.md for the guarantees.
 */
export class LocalActorRuntime implements ActorRuntime, ActivationHost {
  readonly clock: Clock;
  readonly #store: TransactionalStateStore;
  /** Activations' state reads, merged per turn of the event loop. */
  readonly #reads: CoalescedReads;
  readonly #indexes: ActorIndexes;
  readonly #storeName: string;
  readonly #log: Logger;
  readonly #keys: ActorKeys;
  readonly #placement: Placement;
  readonly #idleTimeoutMs: number;
  readonly #types = new Map<string, RegisteredType>();
  readonly #actors = new LiveActors();
  readonly #reminders: ActorReminders;
  readonly #idle: IdleSweeper<Activation>;
  readonly #metrics: ActorMetrics;
  readonly #onFenced: (() => void) | undefined;
  readonly #loadingTypes = new Set<Promise<void>>();
  /** Ownership partitions this host serves (all of them on a single host). */
  readonly #ownedPartitions = new Set<number>();
  readonly #partitionsLeftListeners: ((partitions: ReadonlySet<number>) => void)[] = [];
  #started = false;
  #stopping = false;
  /** The actor whose turn body is starting (running up to its first await), see #startTurnBody. */
  #turnBodyStarting: Activation | undefined;

  constructor(opts: LocalActorRuntimeOptions) {
    this.clock = opts.clock ?? new RealClock();
    this.#store = opts.store;
    this.#reads = new CoalescedReads(opts.store);
    this.#storeName = opts.storeName ?? 'the actor state store';
    this.#log = opts.log;
    this.#keys = new ActorKeys(opts.appId);
    this.#indexes = new ActorIndexes(opts.store, this.#keys, this.#storeName);
    this.#placement = opts.placement ?? new SingleHostPlacement();
    this.#idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_ACTOR_IDLE_TIMEOUT_MS;
    this.#onFenced = opts.onFenced;
    this.#idle = new IdleSweeper<Activation>(
      this.clock,
      (a) => a.lastActive + (this.#types.get(a.type)?.idleTimeoutMs ?? this.#idleTimeoutMs),
      (a) => void this.#deactivate(a),
    );
    this.#metrics = new ActorMetrics(opts.metrics, () => this.status());
    this.#reminders = new ActorReminders(
      opts.store,
      this.#keys,
      this.#placement,
      {
        clock: this.clock,
        log: this.#log,
        metrics: this.#metrics,
        isStopping: () => this.#stopping,
        enqueueReminderTurn: (type, actorId, body) => this.#enqueue(type, actorId, 'reminder', body),
        leaseIdle: (type, actorId, name) => this.#types.get(type)?.leaseIdle?.(actorId, name) === true,
        fenced: () => {
          this.#onFenced?.();
          this.#placement.suspect();
        },
      },
      opts.maxReminderTurnsInFlight ?? 512,
    );
  }

  registerType(type: string, factory: ActorFactory, opts: ActorTypeOptions = {}): void {
    assertValidActorType(type);
    if (this.#types.has(type)) throw new RuntimeError('ERR_MALFORMED_REQUEST', `actor type ${type} is already registered`);
    this.#indexes.declare(type, opts.indexes ?? []);
    this.#types.set(type, { factory, idleTimeoutMs: opts.idleTimeoutMs ?? this.#idleTimeoutMs, uncachedKeyPrefixes: opts.uncachedKeyPrefixes ?? [], leaseIdle: opts.leaseIdle });
    if (this.#started) this.#trackLoad(this.#reminders.load(type, [...this.#ownedPartitions]));
  }

  registeredTypes(): string[] {
    return [...this.#types.keys()];
  }

  async start(): Promise<void> {
    this.#started = true;
    await this.#placement.start({
      acquire: (partitions) => this.#acquire(partitions),
      release: (partitions) => this.#release(partitions),
      lost: (partitions) => this.#drop(partitions),
    });
    this.#reminders.start();
  }

  /** `listener` runs whenever ownership partitions leave this host (handed over or lost). */
  onPartitionsLeft(listener: (partitions: ReadonlySet<number>) => void): void {
    this.#partitionsLeftListeners.push(listener);
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#reminders.stop();
    await Promise.allSettled([...this.#loadingTypes]);
    // Drain: queued turns finish (their callers get answers), then every actor is deactivated.
    await Promise.all(this.#actors.all().map((a) => a.whenIdle()));
    // In slices: deactivating an app-hosted actor is a call to the app, and there may be 100,000s of actors.
    const actors = this.#actors.all();
    for (let i = 0; i < actors.length; i += STOP_DEACTIVATION_SLICE) {
      await Promise.all(actors.slice(i, i + STOP_DEACTIVATION_SLICE).map((a) => this.#deactivate(a)));
    }
    await Promise.all(this.#actors.deactivations());
    this.#idle.stop();
    await this.#placement.stop();
    this.#started = false;
  }

  activeCount(type: string): number {
    return this.#actors.count(type);
  }

  status(): ActorTypeStatus[] {
    return [...this.#types.keys()].map((type) => ({ type, count: this.activeCount(type) }));
  }

  invoke(type: string, id: string, method: string, data?: Buffer): Promise<Buffer | undefined> {
    const starting = this.#turnBodyStarting;
    if (starting !== undefined && starting.id === id && starting.type === type) {
      return Promise.reject(new RuntimeError('ERR_ACTOR_INVOKE_METHOD', `actor ${type}/${id} called itself from its own turn; re-entrancy is off, so this would wait forever`));
    }
    return this.#enqueue(type, id, 'method', (ctx) => ctx.actorInvoke(method, data));
  }

  async createReminder(type: string, id: string, name: string, opts: ReminderOptions): Promise<void> {
    this.#requireOwned(type, id);
    await this.#reminders.create(type, id, name, opts);
  }

  async deleteReminder(type: string, id: string, name: string): Promise<void> {
    this.#requireOwned(type, id);
    await this.#reminders.delete(type, id, name);
  }

  wakeLease(type: string, id: string, name: string): void {
    this.#reminders.wakeLease(type, id, name);
  }

  async getReminder(type: string, id: string, name: string): Promise<ReminderInfo | undefined> {
    this.#requireOwned(type, id);
    return this.#reminders.get(type, id, name);
  }

  /**
   * Not a turn: an app-hosted actor registers timers from inside its own turn, which a queued turn would wait
   * for forever.
   */
  createTimer(type: string, id: string, name: string, opts: TimerOptions): Promise<void> {
    try {
      this.#requireRunning();
      const activation = this.#activation(type, id, this.#requireType(type, id));
      activation.setTimer(name, opts);
      if (activation.idle) this.becameIdle(activation);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(ensureError(err));
    }
  }

  deleteTimer(type: string, id: string, name: string): Promise<void> {
    try {
      this.#requireOwned(type, id);
    } catch (err) {
      return Promise.reject(ensureError(err));
    }
    this.#actors.get(type, id)?.clearTimer(name);
    return Promise.resolve();
  }

  async getState(type: string, id: string, key: string): Promise<Buffer | undefined> {
    this.#requireOwned(type, id);
    const active = this.#actors.get(type, id);
    if (active) return active.cache.get(key);
    return (await this.#store.get({ key: this.#keys.state(type, id, key) }))?.data;
  }

  async applyState(type: string, id: string, ops: readonly ActorStateOperation[]): Promise<void> {
    this.#requireOwned(type, id);
    const writes = new Map<string, Buffer | null>();
    for (const op of ops) writes.set(op.key, op.operation === 'upsert' ? op.value : null);
    // Through the reminder table's commit path, so the write carries the partition's fence like a turn's.
    await this.#reminders.commit(
      type,
      id,
      [],
      [...writes].map(([key, value]): TransactionOperation => {
        const storeKey = this.#keys.state(type, id, key);
        return value === null ? { operation: 'delete', request: { key: storeKey } } : { operation: 'upsert', request: { key: storeKey, value } };
      }),
    );
    // An active actor's cache must not serve the values these writes replaced.
    this.#actors.get(type, id)?.cache.apply(writes);
  }

  listIndex(type: string, page: IndexPage): Promise<IndexEntry[]> {
    return this.#indexes.list(type, page);
  }

  // ---- ActivationHost ----

  async runTurn(activation: Activation, turn: Turn): Promise<Buffer | undefined> {
    // Latency is real elapsed time even under a fake clock: it measures work, not schedule.
    const startedAt = performance.now();
    const ctx = new TurnContext(activation, this.clock, this.#reminders.table);
    let ok = false;
    try {
      const result = await this.#startTurnBody(activation, turn, ctx);
      await this.#commitTurn(activation, ctx);
      if (ctx.deactivateRequested) activation.deactivateWhenIdle = true;
      for (const fn of ctx.committed) fn();
      ok = true;
      return result;
    } finally {
      this.#metrics.turn(activation.type, turn.kind, ok, performance.now() - startedAt);
    }
  }

  /**
   * Runs a turn body up to its first `await` with its actor marked, so a self-call made there is refused instead
   * of queueing behind the turn forever. Only that synchronous start is covered: following the turn across its
   * awaits would need an AsyncLocalStorage, whose promise hook taxes every promise in the process on Node 20
   * (7 % of svcd's CPU in a workflow fan-out; docs/performance.md).
   */
  #startTurnBody(activation: Activation, turn: Turn, ctx: TurnContext): Promise<Buffer | undefined> {
    const outer = this.#turnBodyStarting;
    this.#turnBodyStarting = activation;
    try {
      return turn.body(ctx);
    } finally {
      this.#turnBodyStarting = outer;
    }
  }

  becameIdle(activation: Activation): void {
    if (activation.deactivateWhenIdle && !this.#stopping) void this.#deactivate(activation);
    else this.#idle.watch(activation);
  }

  timerFailed(activation: Activation, name: string, err: unknown): void {
    this.#log.warn({ actorType: activation.type, actorId: activation.id, timer: name, err: ensureError(err).message }, 'actor timer callback failed');
  }

  // ---- internals ----

  #requireType(type: string, id: string): RegisteredType {
    assertValidActorId(id);
    const reg = this.#types.get(type);
    if (!reg) throw new RuntimeError('ERR_ACTOR_INSTANCE_MISSING', `actor type ${type} is not registered in this app`);
    return reg;
  }

  /** Out-of-turn operations on an actor (reminders, state, timers) run only where the actor is owned. */
  #requireOwned(type: string, id: string): RegisteredType {
    const reg = this.#requireType(type, id);
    if (!this.#placement.lookup(type, id).local) throw notOwnerError(type, id, 'another replica owns it');
    return reg;
  }

  #requireRunning(): void {
    // Several replicas: a stopping replica is handing its actors over; the caller finds the new owner.
    if (this.#stopping && this.#placement.fencing) throw notOwnerError('(any)', '-', 'this replica is stopping');
    if (this.#stopping || !this.#started) {
      throw new RuntimeError('ERR_ACTOR_RUNTIME_STOPPING', this.#stopping ? 'the actor runtime is stopping' : 'the actor runtime is not started');
    }
  }

  #cacheFor(type: string, id: string, reg: RegisteredType): ActorStateCache {
    const prefixes = reg.uncachedKeyPrefixes;
    return new ActorStateCache(this.#reads, (key) => this.#keys.state(type, id, key), (key) => !prefixes.some((p) => key.startsWith(p)));
  }

  #enqueue(type: string, id: string, kind: TurnKind, body: (ctx: TurnContext) => Promise<Buffer | undefined>): Promise<Buffer | undefined> {
    return new Promise((resolve, reject) => {
      this.#requireRunning();
      const reg = this.#requireType(type, id);
      this.#activation(type, id, reg).enqueue({ kind, body, resolve, reject });
    });
  }

  #activation(type: string, id: string, reg: RegisteredType): Activation {
    // Asked on every call, also for an active actor: a partition being handed over takes no new turns.
    if (!this.#placement.lookup(type, id).local) throw notOwnerError(type, id, 'another replica owns it');
    const existing = this.#actors.get(type, id);
    if (existing) return existing;
    const activation = new Activation(type, id, reg.factory(id), this.#cacheFor(type, id, reg), this);
    this.#actors.add(activation);
    const previous = this.#actors.deactivation(type, id);
    if (previous || activation.actor.onActivate) {
      activation.enqueue({
        kind: 'activate',
        body: async (ctx) => {
          await previous;
          await activation.actor.onActivate?.(ctx);
          return undefined;
        },
        resolve: () => undefined,
        reject: (err) => {
          // An actor that cannot activate serves nobody: fail the queued calls and drop the activation.
          this.#log.warn({ actorType: type, actorId: id, err: ensureError(err).message }, 'actor activation failed');
          activation.closed = true;
          this.#actors.remove(activation);
          activation.rejectQueued(err);
        },
      });
    }
    return activation;
  }

  #deactivate(activation: Activation): Promise<void> {
    if (activation.closed) return this.#actors.deactivation(activation.type, activation.id) ?? Promise.resolve();
    activation.closed = true;
    this.#actors.remove(activation);
    activation.clearAllTimers();
    const done = (async () => {
      try {
        await activation.actor.onDeactivate?.(new TurnContext(activation, this.clock, this.#reminders.table));
      } catch (err) {
        this.#log.warn({ actorType: activation.type, actorId: activation.id, err: ensureError(err).message }, 'actor onDeactivate failed');
      }
      // The idle sweeper may reference the ended activation until its deadline surfaces: hold no state meanwhile.
      activation.cache.clear();
    })();
    this.#actors.deactivating(activation, done);
    return done;
  }

  async #commitTurn(activation: Activation, ctx: TurnContext): Promise<void> {
    const writes = ctx.state.writes;
    const stateOps = await activation.cache.toOperations(writes);
    stateOps.push(...this.#indexes.writes(activation.type, ctx.indexChanges));
    // Through the reminder table's group commit even without reminder changes: turns of many actors that finish
    // while a transaction is in flight share the next one.
    if (ctx.reminderChanges.size > 0 || stateOps.length > 0) await this.#reminders.commit(activation.type, activation.id, [...ctx.reminderChanges.values()], stateOps);
    activation.cache.apply(writes);
  }

  // ---- partitions coming and going (placement hooks) ----

  async #acquire(partitions: readonly number[]): Promise<void> {
    for (const p of partitions) this.#ownedPartitions.add(p);
    await Promise.all([...this.#types.keys()].map((t) => this.#reminders.load(t, partitions)));
  }

  /** Handover: the queued turns of these partitions finish, their actors deactivate, their reminders go. */
  async #release(partitions: readonly number[]): Promise<void> {
    const actors = this.#actors.inPartitions(partitions);
    await Promise.all(actors.map((a) => a.whenIdle()));
    await Promise.all(actors.map((a) => this.#deactivate(a)));
    this.#unloadReminders(partitions);
  }

  /** Lost without handover: another replica may already run these actors; drop ours without running anything. */
  #drop(partitions: readonly number[]): void {
    const err = notOwnerError('(lost partition)', '-', 'the partition moved to another replica');
    for (const a of this.#actors.inPartitions(partitions)) {
      a.closed = true;
      this.#actors.remove(a);
      a.clearAllTimers();
      a.rejectQueued(err);
      a.cache.clear();
    }
    this.#unloadReminders(partitions);
  }

  #unloadReminders(partitions: readonly number[]): void {
    for (const p of partitions) this.#ownedPartitions.delete(p);
    const left = new Set(partitions);
    for (const listener of this.#partitionsLeftListeners) listener(left);
    this.#reminders.unload(partitions);
  }

  #trackLoad(p: Promise<void>): void {
    const tracked = p.catch((err: unknown) => this.#log.error({ err: ensureError(err).message }, 'loading actor reminders failed'));
    this.#loadingTypes.add(tracked);
    void tracked.then(() => this.#loadingTypes.delete(tracked));
  }

}
