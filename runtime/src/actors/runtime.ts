import type { Registry } from 'prom-client';
import { RuntimeError, ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { canListKeys, type KeyListingStore, type TransactionOperation, type TransactionalStateStore } from '../components/contracts/state-store.js';
import { Activation, type ActivationHost, type Turn } from './activation.js';
import { RealClock } from './clock.js';
import { IdleSweeper } from './idle-sweeper.js';
import { ActorKeys, assertValidActorId, assertValidActorType, assertValidIndexName } from './keys.js';
import { ActorMetrics, type TurnKind } from './metrics.js';
import { SingleHostPlacement } from './placement.js';
import { FencedError } from '../state/placement-store.js';
import { ownershipPartitionOf } from './placement/partitions.js';
import { ReminderScheduler, type ScheduledFire } from './reminder-scheduler.js';
import { afterFire, isExpired, reminderRecord } from './reminder-schedule.js';
import { ReminderTable, notOwnerError, type ReminderChange, type StoredReminder } from './reminder-table.js';
import { ActorStateCache } from './state-cache.js';
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
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;
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
  /** The named indexes (`ActorTypeOptions.indexes`). */
  readonly indexes: ReadonlySet<string>;
  readonly leaseIdle: ActorTypeOptions['leaseIdle'];
}

const actorKey = (type: string, id: string) => `${type}||${id}`;

/**
 * The single-process actor runtime: activations, turns and their commits, idle deactivation, and the durable
 * reminder scheduler. See types.ts for the contract and docs/actors.md for the guarantees.
 */
export class LocalActorRuntime implements ActorRuntime, ActivationHost {
  readonly clock: Clock;
  readonly #store: TransactionalStateStore;
  /** The store as a key listing, when it can list (types' indexes are written and read only then). */
  readonly #listing: KeyListingStore | undefined;
  readonly #storeName: string;
  readonly #log: Logger;
  readonly #keys: ActorKeys;
  readonly #placement: Placement;
  readonly #idleTimeoutMs: number;
  readonly #types = new Map<string, RegisteredType>();
  readonly #actors = new Map<string, Activation>();
  /** Kept in step with #actors, so metadata and the gauge do not walk every activation. */
  readonly #activeByType = new Map<string, number>();
  readonly #deactivating = new Map<string, Promise<void>>();
  readonly #reminders: ReminderTable;
  readonly #scheduler: ReminderScheduler;
  readonly #idle: IdleSweeper<Activation>;
  readonly #metrics: ActorMetrics;
  readonly #retryAttempts = new Map<string, number>();
  readonly #maxReminderTurns: number;
  readonly #onFenced: (() => void) | undefined;
  readonly #reminderBacklog: ScheduledFire[] = [];
  #reminderBacklogHead = 0;
  #reminderTurns = 0;
  readonly #loadingTypes = new Set<Promise<void>>();
  /** Ownership partitions this host serves (all of them on a single host). */
  readonly #ownedPartitions = new Set<number>();
  readonly #partitionsLeftListeners: ((partitions: ReadonlySet<number>) => void)[] = [];
  #started = false;
  #stopping = false;
  /** The actor whose turn body is starting (running up to its first await), see #startTurnBody. */
  #turnBodyStarting: string | undefined;

  constructor(opts: LocalActorRuntimeOptions) {
    this.clock = opts.clock ?? new RealClock();
    this.#store = opts.store;
    this.#listing = canListKeys(opts.store) ? opts.store : undefined;
    this.#storeName = opts.storeName ?? 'the actor state store';
    this.#log = opts.log;
    this.#keys = new ActorKeys(opts.appId);
    this.#placement = opts.placement ?? new SingleHostPlacement();
    this.#idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_ACTOR_IDLE_TIMEOUT_MS;
    this.#maxReminderTurns = opts.maxReminderTurnsInFlight ?? 512;
    this.#onFenced = opts.onFenced;
    this.#reminders = new ReminderTable(opts.store, this.#keys, this.#placement.fencing);
    this.#scheduler = new ReminderScheduler(this.clock, (fire) => this.#dispatchReminder(fire));
    this.#idle = new IdleSweeper<Activation>(
      this.clock,
      (a) => a.lastActive + (this.#types.get(a.type)?.idleTimeoutMs ?? this.#idleTimeoutMs),
      (a) => void this.#deactivate(a),
    );
    this.#metrics = new ActorMetrics(opts.metrics, () => this.status());
  }

  registerType(type: string, factory: ActorFactory, opts: ActorTypeOptions = {}): void {
    assertValidActorType(type);
    if (this.#types.has(type)) throw new RuntimeError('ERR_MALFORMED_REQUEST', `actor type ${type} is already registered`);
    const indexes = new Set(opts.indexes ?? []);
    for (const name of indexes) assertValidIndexName(name);
    this.#types.set(type, { factory, idleTimeoutMs: opts.idleTimeoutMs ?? this.#idleTimeoutMs, uncachedKeyPrefixes: opts.uncachedKeyPrefixes ?? [], indexes, leaseIdle: opts.leaseIdle });
    for (const name of ['', ...indexes]) this.#listing?.declareListedPrefix(this.#keys.indexPrefix(type, name));
    if (this.#started) this.#trackLoad(this.#loadReminders(type));
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
    this.#scheduler.start();
  }

  /** `listener` runs whenever ownership partitions leave this host (handed over or lost). */
  onPartitionsLeft(listener: (partitions: ReadonlySet<number>) => void): void {
    this.#partitionsLeftListeners.push(listener);
  }


  async stop(): Promise<void> {
    this.#stopping = true;
    this.#scheduler.stop();
    await Promise.allSettled([...this.#loadingTypes]);
    // Drain: queued turns finish (their callers get answers), then every actor is deactivated.
    await Promise.all([...this.#actors.values()].map((a) => a.whenIdle()));
    // In slices: deactivating an app-hosted actor is a call to the app, and there may be 100,000s of actors.
    const actors = [...this.#actors.values()];
    for (let i = 0; i < actors.length; i += STOP_DEACTIVATION_SLICE) {
      await Promise.all(actors.slice(i, i + STOP_DEACTIVATION_SLICE).map((a) => this.#deactivate(a)));
    }
    await Promise.all([...this.#deactivating.values()]);
    this.#idle.stop();
    await this.#placement.stop();
    this.#started = false;
  }

  activeCount(type: string): number {
    return this.#activeByType.get(type) ?? 0;
  }

  status(): ActorTypeStatus[] {
    return [...this.#types.keys()].map((type) => ({ type, count: this.activeCount(type) }));
  }

  invoke(type: string, id: string, method: string, data?: Buffer): Promise<Buffer | undefined> {
    if (this.#turnBodyStarting === actorKey(type, id)) {
      return Promise.reject(new RuntimeError('ERR_ACTOR_INVOKE_METHOD', `actor ${type}/${id} called itself from its own turn; re-entrancy is off, so this would wait forever`));
    }
    return this.#enqueue(type, id, 'method', (ctx) => ctx.actorInvoke(method, data));
  }

  async createReminder(type: string, id: string, name: string, opts: ReminderOptions): Promise<void> {
    this.#requireOwned(type, id);
    await this.#commitReminders(type, id, [{ name, reminder: reminderRecord(opts, this.clock.now()) }], []);
  }

  async deleteReminder(type: string, id: string, name: string): Promise<void> {
    this.#requireOwned(type, id);
    await this.#commitReminders(type, id, [{ name, reminder: null }], []);
  }

  async getReminder(type: string, id: string, name: string): Promise<ReminderInfo | undefined> {
    this.#requireOwned(type, id);
    const stored = await this.#reminders.get(type, id, name);
    if (!stored) return undefined;
    const { generation: _generation, ...info } = stored;
    return info;
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
    this.#actors.get(actorKey(type, id))?.clearTimer(name);
    return Promise.resolve();
  }

  async getState(type: string, id: string, key: string): Promise<Buffer | undefined> {
    this.#requireOwned(type, id);
    const active = this.#actors.get(actorKey(type, id));
    if (active) return active.cache.get(key);
    return (await this.#store.get({ key: this.#keys.state(type, id, key) }))?.data;
  }

  async applyState(type: string, id: string, ops: readonly ActorStateOperation[]): Promise<void> {
    this.#requireOwned(type, id);
    const writes = new Map<string, Buffer | null>();
    for (const op of ops) writes.set(op.key, op.operation === 'upsert' ? op.value : null);
    // Through the reminder table's commit path, so the write carries the partition's fence like a turn's.
    await this.#commitReminders(
      type,
      id,
      [],
      [...writes].map(([key, value]): TransactionOperation => {
        const storeKey = this.#keys.state(type, id, key);
        return value === null ? { operation: 'delete', request: { key: storeKey } } : { operation: 'upsert', request: { key: storeKey, value } };
      }),
    );
    // An active actor's cache must not serve the values these writes replaced.
    this.#actors.get(actorKey(type, id))?.cache.apply(writes);
  }

  async listIndex(type: string, page: IndexPage): Promise<IndexEntry[]> {
    assertValidActorType(type);
    if (!this.#listing) throw new RuntimeError('ERR_STATE_STORE_NOT_SUPPORTED', `${this.#storeName} cannot list keys in order, which listing needs (SQLite, PostgreSQL, Redis and in-memory stores can)`);
    const index = page.index ?? '';
    this.#checkIndexName(type, index);
    const prefix = this.#keys.indexPrefix(type, index);
    const listed = await this.#listing.listKeys(prefix, { limit: page.limit, ...(page.after !== undefined ? { after: prefix + page.after } : {}) });
    return listed.map((e) => ({ key: e.key.slice(prefix.length), value: e.value }));
  }

  /** A named index must be declared with its type: stores that keep listings (Redis) maintain declared ones only. */
  #checkIndexName(type: string, index: string): void {
    if (index !== '' && !this.#types.get(type)?.indexes.has(index)) {
      throw new RuntimeError('ERR_MALFORMED_REQUEST', `actor type ${type} has no index named '${index}' (declare it in the type's options)`);
    }
  }

  // ---- ActivationHost ----

  async runTurn(activation: Activation, turn: Turn): Promise<Buffer | undefined> {
    // Latency is real elapsed time even under a fake clock: it measures work, not schedule.
    const startedAt = performance.now();
    const ctx = new TurnContext(activation, this.clock, this.#reminders);
    let ok = false;
    try {
      const result = await this.#startTurnBody(actorKey(activation.type, activation.id), turn, ctx);
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
  #startTurnBody(key: string, turn: Turn, ctx: TurnContext): Promise<Buffer | undefined> {
    const outer = this.#turnBodyStarting;
    this.#turnBodyStarting = key;
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
    return new ActorStateCache(this.#store, (key) => this.#keys.state(type, id, key), (key) => !prefixes.some((p) => key.startsWith(p)));
  }

  #enqueue(type: string, id: string, kind: TurnKind, body: (ctx: TurnContext) => Promise<Buffer | undefined>): Promise<Buffer | undefined> {
    return new Promise((resolve, reject) => {
      this.#requireRunning();
      const reg = this.#requireType(type, id);
      this.#activation(type, id, reg).enqueue({ kind, body, resolve, reject });
    });
  }

  #activation(type: string, id: string, reg: RegisteredType): Activation {
    const key = actorKey(type, id);
    // Asked on every call, also for an active actor: a partition being handed over takes no new turns.
    if (!this.#placement.lookup(type, id).local) throw notOwnerError(type, id, 'another replica owns it');
    const existing = this.#actors.get(key);
    if (existing) return existing;
    const activation = new Activation(type, id, reg.factory(id), this.#cacheFor(type, id, reg), this);
    this.#track(key, activation);
    const previous = this.#deactivating.get(key);
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
          this.#untrack(key, activation);
          activation.rejectQueued(err);
        },
      });
    }
    return activation;
  }

  #track(key: string, activation: Activation): void {
    this.#actors.set(key, activation);
    this.#activeByType.set(activation.type, this.activeCount(activation.type) + 1);
  }

  #untrack(key: string, activation: Activation): void {
    if (this.#actors.get(key) !== activation) return;
    this.#actors.delete(key);
    this.#activeByType.set(activation.type, this.activeCount(activation.type) - 1);
  }

  #deactivate(activation: Activation): Promise<void> {
    const key = actorKey(activation.type, activation.id);
    if (activation.closed) return this.#deactivating.get(key) ?? Promise.resolve();
    activation.closed = true;
    this.#untrack(key, activation);
    activation.clearAllTimers();
    const done = (async () => {
      try {
        await activation.actor.onDeactivate?.(new TurnContext(activation, this.clock, this.#reminders));
      } catch (err) {
        this.#log.warn({ actorType: activation.type, actorId: activation.id, err: ensureError(err).message }, 'actor onDeactivate failed');
      }
      // The idle sweeper may reference the ended activation until its deadline surfaces: hold no state meanwhile.
      activation.cache.clear();
    })();
    this.#deactivating.set(key, done);
    void done.then(() => {
      if (this.#deactivating.get(key) === done) this.#deactivating.delete(key);
    });
    return done;
  }

  async #commitTurn(activation: Activation, ctx: TurnContext): Promise<void> {
    const writes = ctx.state.writes;
    const stateOps = await activation.cache.toOperations(writes);
    if (this.#listing) {
      for (const [index, changes] of ctx.indexChanges) {
        this.#checkIndexName(activation.type, index);
        for (const [key, value] of changes) {
          const storeKey = this.#keys.index(activation.type, key, index);
          stateOps.push(value === null ? { operation: 'delete', request: { key: storeKey } } : { operation: 'upsert', request: { key: storeKey, value } });
        }
      }
    }
    // Through the reminder table's group commit even without reminder changes: turns of many actors that finish
    // while a transaction is in flight share the next one.
    if (ctx.reminderChanges.size > 0 || stateOps.length > 0) await this.#commitReminders(activation.type, activation.id, [...ctx.reminderChanges.values()], stateOps);
    activation.cache.apply(writes);
  }

  /** Commits reminder changes (with state operations) and brings the scheduler in step with what applied. */
  async #commitReminders(type: string, id: string, changes: ReminderChange[], stateOps: Parameters<ReminderTable['commit']>[3]): Promise<void> {
    let applied: Map<string, StoredReminder | null>;
    try {
      applied = await this.#reminders.commit(type, id, changes, stateOps);
    } catch (err) {
      if (!(err instanceof FencedError)) throw err;
      // Another replica owns the partition now: nothing was written; find out at once.
      this.#onFenced?.();
      this.#placement.suspect();
      throw notOwnerError(type, id, err.message);
    }
    for (const [name, reminder] of applied) {
      this.#retryAttempts.delete(actorKey(type, id) + '||' + name);
      if (reminder) this.#schedule(reminder, reminder.dueAt);
      else this.#scheduler.unschedule({ type, actorId: id, name });
    }
  }

  #schedule(r: StoredReminder, at: number): void {
    this.#scheduler.schedule({ type: r.actorType, actorId: r.actorId, name: r.name, generation: r.generation, at });
  }

  async #loadReminders(type: string, partitions: readonly number[] = [...this.#ownedPartitions]): Promise<void> {
    if (partitions.length === 0) return;
    const reminders = await this.#reminders.loadOwned(type, partitions);
    const now = this.clock.now();
    for (const r of reminders) {
      // A reminder rescheduled since the load started is already in the scheduler with its newer generation.
      if (this.#reminders.peek(type, r.actorId, r.name)?.generation !== r.generation) continue;
      // A lease (advanceInMemory) guards work the previous owner held in memory, which is gone: fire it at once.
      this.#schedule(r, r.advanceInMemory ? Math.min(r.dueAt, now) : r.dueAt);
    }
    if (reminders.length > 0) this.#log.info({ actorType: type, reminders: reminders.length, partitions: partitions.length }, 'actor reminders loaded');
  }

  // ---- partitions coming and going (placement hooks) ----

  async #acquire(partitions: readonly number[]): Promise<void> {
    for (const p of partitions) this.#ownedPartitions.add(p);
    await Promise.all([...this.#types.keys()].map((t) => this.#loadReminders(t, partitions)));
  }

  /** Handover: the queued turns of these partitions finish, their actors deactivate, their reminders go. */
  async #release(partitions: readonly number[]): Promise<void> {
    const actors = this.#actorsIn(partitions);
    await Promise.all(actors.map((a) => a.whenIdle()));
    await Promise.all(actors.map((a) => this.#deactivate(a)));
    this.#unloadReminders(partitions);
  }

  /** Lost without handover: another replica may already run these actors; drop ours without running anything. */
  #drop(partitions: readonly number[]): void {
    const err = notOwnerError('(lost partition)', '-', 'the partition moved to another replica');
    for (const a of this.#actorsIn(partitions)) {
      a.closed = true;
      this.#untrack(actorKey(a.type, a.id), a);
      a.clearAllTimers();
      a.rejectQueued(err);
      a.cache.clear();
    }
    this.#unloadReminders(partitions);
  }

  #actorsIn(partitions: readonly number[]): Activation[] {
    const set = new Set(partitions);
    return [...this.#actors.values()].filter((a) => set.has(ownershipPartitionOf(a.id)));
  }

  #unloadReminders(partitions: readonly number[]): void {
    for (const p of partitions) this.#ownedPartitions.delete(p);
    const left = new Set(partitions);
    for (const listener of this.#partitionsLeftListeners) listener(left);
    for (const r of this.#reminders.unloadOwned(partitions)) {
      this.#scheduler.unschedule({ type: r.actorType, actorId: r.actorId, name: r.name });
      this.#retryAttempts.delete(actorKey(r.actorType, r.actorId) + '||' + r.name);
    }
  }

  #trackLoad(p: Promise<void>): void {
    const tracked = p.catch((err: unknown) => this.#log.error({ err: ensureError(err).message }, 'loading actor reminders failed'));
    this.#loadingTypes.add(tracked);
    void tracked.then(() => this.#loadingTypes.delete(tracked));
  }

  /** Due fires wait in a FIFO (they arrive in due-time order) while too many reminder turns are in flight. */
  #dispatchReminder(fire: ScheduledFire): void {
    if (this.#reminderTurns >= this.#maxReminderTurns) {
      this.#reminderBacklog.push(fire);
      return;
    }
    this.#reminderTurns++;
    void this.#runReminder(fire).finally(() => {
      this.#reminderTurns--;
      const next = this.#reminderBacklog[this.#reminderBacklogHead];
      if (next === undefined || this.#stopping) return;
      this.#reminderBacklogHead++;
      if (this.#reminderBacklogHead === this.#reminderBacklog.length) {
        this.#reminderBacklog.length = 0;
        this.#reminderBacklogHead = 0;
      }
      this.#dispatchReminder(next);
    });
  }

  #runReminder(fire: ScheduledFire): Promise<void> {
    const retryKey = actorKey(fire.type, fire.actorId) + '||' + fire.name;
    const idle = this.#idleLeaseAdvance(fire);
    const work = idle ? this.#commitReminders(fire.type, fire.actorId, [idle], []) : this.#enqueue(fire.type, fire.actorId, 'reminder', (ctx) => this.#reminderTurn(ctx, fire));
    return work.then(
      () => void this.#retryAttempts.delete(retryKey),
      (err: unknown) => {
        if (this.#stopping) return;
        const current = this.#reminders.peek(fire.type, fire.actorId, fire.name);
        if (current?.generation !== fire.generation) return;
        const attempt = (this.#retryAttempts.get(retryKey) ?? 0) + 1;
        this.#retryAttempts.set(retryKey, attempt);
        const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (attempt - 1));
        this.#log.warn({ actorType: fire.type, actorId: fire.actorId, reminder: fire.name, attempt, retryInMs: delay, err: ensureError(err).message }, 'actor reminder failed; retrying');
        this.#schedule(current, this.clock.now() + delay);
      },
    );
  }

  /**
   * The in-memory advance of a lease whose type says its work is in hand (`ActorTypeOptions.leaseIdle`), or
   * undefined when the fire must run as a turn. Only the next due time moves, exactly as a turn's acknowledgement
   * of such a fire would move it; the stored reminder is not written either way.
   */
  #idleLeaseAdvance(fire: ScheduledFire): ReminderChange | undefined {
    const r = this.#reminders.peek(fire.type, fire.actorId, fire.name);
    if (!r?.advanceInMemory || r.generation !== fire.generation) return undefined;
    const now = this.clock.now();
    if (isExpired(r, now) || this.#types.get(fire.type)?.leaseIdle?.(fire.actorId, fire.name) !== true) return undefined;
    return { name: r.name, reminder: afterFire(r, now), ifGeneration: r.generation };
  }

  async #reminderTurn(ctx: TurnContext, fire: ScheduledFire): Promise<undefined> {
    const r = this.#reminders.peek(fire.type, fire.actorId, fire.name);
    // Deleted or replaced while queued: the replacement has its own schedule.
    if (!r || r.generation !== fire.generation) return undefined;
    const now = this.clock.now();
    if (isExpired(r, now)) {
      ctx.acknowledge({ name: r.name, reminder: null, ifGeneration: r.generation });
      return undefined;
    }
    this.#metrics.reminderLag(r.actorType, now - r.dueAt);
    const { generation: _generation, ...info } = r;
    await ctx.actorReminder(r.name, r.data, info);
    ctx.acknowledge({ name: r.name, reminder: afterFire(r, now), ifGeneration: r.generation });
    return undefined;
  }
}
