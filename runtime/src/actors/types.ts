import type { Fence } from '../state/placement-store.js';

/**
 * The public boundary of the virtual actor runtime. The workflow engine and the HTTP actor API are clients of
 * these interfaces only; everything else under `actors/` is implementation.
 *
 * Model: an actor is addressed by (type, id), activated on its first message, deactivated after an idle time.
 * Each actor runs one turn at a time (method call, reminder or timer), in arrival order; different actors run
 * concurrently. A turn's state writes — and the reminders it creates or deletes through its context — are
 * committed in ONE store transaction when the turn returns; a turn that throws commits nothing.
 */

/** Milliseconds since the Unix epoch, from the runtime's clock. */
export type EpochMs = number;

/** Opaque; only for `clearTimeout`. */
export type TimerHandle = object | number;

/** Injectable time source: the real one in svcd, the fake one (`FakeClock.advance`) in unit tests. */
export interface Clock {
  now(): EpochMs;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/**
 * An actor's view of its state during a turn. Reads are served from the activation's cache (each key is read
 * from the store at most once per activation); writes are buffered and committed atomically at turn end.
 * A read after a write in the same turn sees the write.
 */
export interface ActorStateTxn {
  get(key: string): Promise<Buffer | undefined>;
  /** Like `get` for several keys, with one store round trip for the keys not cached yet. */
  getMany(keys: readonly string[]): Promise<(Buffer | undefined)[]>;
  set(key: string, value: Buffer): void;
  delete(key: string): void;
}

export interface ReminderOptions {
  /** Due this many ms from now (default 0: now). Ignored when `dueAt` is given. */
  dueTimeMs?: number;
  /** Absolute due time; wins over `dueTimeMs`. A due time in the past fires as soon as possible. */
  dueAt?: EpochMs;
  /** Fires again every `periodMs` after each acknowledged fire; absent means one-shot. */
  periodMs?: number;
  /** With `periodMs`: the total number of fires (ISO 8601 `R<n>/…`); absent means unlimited. */
  repetitions?: number;
  /** The reminder is deleted once `now` passes creation + ttlMs (it never fires after that). */
  ttlMs?: number;
  /** Absolute expiry; wins over `ttlMs`. */
  expiresAt?: EpochMs;
  data?: Buffer;
  /**
   * The due time and period as the client wrote them (e.g. `"0h0m5s"`, `"R3/PT1S"`), handed back unchanged to
   * app-hosted actors in the reminder callback body. In-process actors can ignore them.
   */
  dueTimeText?: string;
  periodText?: string;
  /**
   * For a periodic reminder without a repetition limit whose fires are mostly no-ops (a lease that only matters
   * after a crash): an acknowledged fire moves the next due time in memory only, without writing the reminder
   * table. The stored due time stays the one the reminder was created with. Such a reminder guards work that
   * lived in the memory of its actor's host, so whenever its partition is loaded anew (restart, failover,
   * handover) it fires at once, then on its period.
   */
  advanceInMemory?: boolean;
}

/** A stored reminder as `getReminder` returns it and as a fire describes it. */
export interface ReminderInfo {
  readonly actorType: string;
  readonly actorId: string;
  readonly name: string;
  /** The due time of this fire (for `getReminder`: of the next fire). */
  readonly dueAt: EpochMs;
  readonly periodMs?: number;
  /** Fires left including this one, when the reminder has a repetition limit. */
  readonly repetitionsLeft?: number;
  readonly expiresAt?: EpochMs;
  readonly data?: Buffer;
  readonly dueTimeText?: string;
  readonly periodText?: string;
  /** See `ReminderOptions.advanceInMemory`. */
  readonly advanceInMemory?: boolean;
}

export interface TimerOptions {
  /** Default 0. */
  dueTimeMs?: number;
  periodMs?: number;
  /** With `periodMs`: total number of fires. */
  repetitions?: number;
  ttlMs?: number;
  data?: Buffer;
  dueTimeText?: string;
  periodText?: string;
  /** The app method an app-hosted actor asked to be called (Dapr's timer `callback`); passed back unchanged. */
  callback?: string;
}

export interface TimerInfo {
  readonly name: string;
  readonly dueAt: EpochMs;
  readonly periodMs?: number;
  readonly data?: Buffer;
  readonly dueTimeText?: string;
  readonly periodText?: string;
  readonly callback?: string;
}

/**
 * What a turn sees. Valid only during the turn it was passed to (and in `onActivate`/`onDeactivate`).
 *
 * `createReminder`/`deleteReminder` inside a turn are buffered with the state writes and committed in the same
 * transaction: state and reminders never disagree after a crash. A reminder created in a turn starts firing
 * only after the turn committed. Deleting the reminder that is currently firing is allowed (it is not fired again).
 */
export interface ActorContext {
  readonly type: string;
  readonly id: string;
  readonly state: ActorStateTxn;
  readonly clock: Clock;
  createReminder(name: string, opts: ReminderOptions): void;
  deleteReminder(name: string): void;
  /** The committed reminder, with this turn's buffered create/delete applied. */
  getReminder(name: string): Promise<ReminderInfo | undefined>;
  /** Timers are in memory: they die with the activation and are not transactional. */
  createTimer(name: string, opts: TimerOptions): void;
  deleteTimer(name: string): void;
  /**
   * Once this turn committed and the actor's queue has run empty, the activation ends (as on idle timeout)
   * instead of waiting for the idle timeout: for an actor that knows it is done (a finished workflow instance),
   * so its memory is freed at once. A later message activates it again.
   */
  deactivateWhenIdle(): void;
  /**
   * Runs `fn` once this turn's writes are committed (never when the turn fails): for effects outside the store
   * that must not happen for work that was not recorded, such as handing a scheduled activity to a worker.
   */
  afterCommit(fn: () => void): void;
  /**
   * Writes (or with `null` deletes) this actor's entry `key` in its TYPE's index, in this turn's transaction: the
   * index and the actor's state never disagree. Entries of all actors of a type are listed together in key order
   * (`ActorRuntime.listIndex`), e.g. keyed by actor id. Keep entries small; a key is any non-empty string.
   * `index` names one of the type's named indexes (`ActorTypeOptions.indexes`); absent: the unnamed one.
   */
  setIndexEntry(key: string, value: Buffer | null, index?: string): void;
}

/** One entry of a type's index. */
export interface IndexEntry {
  readonly key: string;
  readonly value: Buffer;
}

/**
 * One actor instance, created by the type's factory on activation. Every callback is a turn.
 *
 * `onReminder` returning normally acknowledges the fire: in the turn's transaction a one-shot reminder is
 * deleted, a periodic one gets its next due time. Throwing leaves the reminder as it was (nothing of the turn is
 * committed) and the runtime retries it with backoff (100 ms doubling up to 5 s) — the at-least-once path the
 * workflow engine relies on. Keep reminder turns short (no waiting on outside work): at most 512 reminder turns
 * are queued or running per process, later due reminders wait behind them.
 */
export interface Actor {
  onActivate?(ctx: ActorContext): Promise<void>;
  invoke(method: string, data: Buffer | undefined, ctx: ActorContext): Promise<Buffer | undefined>;
  onReminder?(name: string, data: Buffer | undefined, ctx: ActorContext, info: ReminderInfo): Promise<void>;
  onTimer?(name: string, data: Buffer | undefined, ctx: ActorContext, info: TimerInfo): Promise<void>;
  /** Called (as a last turn, nothing committed) when the activation ends: idle timeout or runtime stop. */
  onDeactivate?(ctx: ActorContext): Promise<void>;
}

export type ActorFactory = (id: string) => Actor;

export interface ActorTypeOptions {
  /** Overrides the runtime's idle timeout (`--actor-idle-timeout`) for this type. */
  idleTimeoutMs?: number;
  /**
   * Keys whose values the actor keeps decoded itself: the activation never caches them (every read goes to the
   * store). A workflow instance holds its history as objects; caching its 200,000 stored forms too doubled a
   * large fan-out's memory.
   */
  uncachedKeyPrefixes?: readonly string[];
  /**
   * Named indexes of the type beside its unnamed one (`ActorContext.setIndexEntry(key, value, name)`), e.g. the
   * same entries keyed in another order.
   */
  indexes?: readonly string[];
  /**
   * For `advanceInMemory` reminders (leases): true when the work the lease guards is in hand right now, so a fire
   * would change nothing. The lease is then parked — no turn, no activation, no state read, no further fires
   * (100,000 instances waiting for a worker would otherwise each be loaded, or at least rescheduled, every lease
   * period) — until the type calls `ActorRuntime.wakeLease` when that work leaves its hands.
   */
  leaseIdle?: (actorId: string, reminderName: string) => boolean;
}

/** A page of an index: entries after `after` (exclusive), at most `limit`; `index` names a named index. */
export interface IndexPage {
  index?: string;
  after?: string;
  limit: number;
}

export interface ActorTypeStatus {
  readonly type: string;
  readonly count: number;
}

/** A state operation applied outside a turn (the sidecar actor state API used by app-hosted actors). */
export type ActorStateOperation = { operation: 'upsert'; key: string; value: Buffer } | { operation: 'delete'; key: string };

export interface ActorRuntime {
  /**
   * Registers a type. May be called before or after `start()`; its stored reminders are loaded when both
   * happened. Registering a type twice throws.
   */
  registerType(type: string, factory: ActorFactory, opts?: ActorTypeOptions): void;
  registeredTypes(): string[];
  /**
   * Queues one method turn on (type, id), activating it if needed; resolves with the turn's result after its
   * writes committed, rejects with the turn's error (nothing committed). `ERR_ACTOR_INSTANCE_MISSING` for an
   * unregistered type. A turn must not invoke its own actor (re-entrancy is off): a self-call made before the turn's first
   * `await` is rejected with `ERR_ACTOR_INVOKE_METHOD`; a later one, or a cycle through other actors, would wait forever.
   */
  invoke(type: string, id: string, method: string, data?: Buffer): Promise<Buffer | undefined>;
  /** Persists a reminder now (own transaction). Replaces a reminder of the same name. */
  createReminder(type: string, id: string, name: string, opts: ReminderOptions): Promise<void>;
  /** Deletes a reminder now; deleting a missing reminder is not an error. */
  deleteReminder(type: string, id: string, name: string): Promise<void>;
  getReminder(type: string, id: string, name: string): Promise<ReminderInfo | undefined>;
  /**
   * The work a lease guards has left the type's hands (see `ActorTypeOptions.leaseIdle`): the lease, if parked,
   * resumes its period. This host's leases only (the work and the lease are both with the actor's owner).
   */
  wakeLease(type: string, id: string, name: string): void;
  /**
   * Timers from outside a turn, for app-hosted actors (called from inside the actor's own app-side turn, so it
   * does not queue behind it): activates the actor if needed.
   */
  createTimer(type: string, id: string, name: string, opts: TimerOptions): Promise<void>;
  deleteTimer(type: string, id: string, name: string): Promise<void>;
  /** Reads an actor's state key straight from the store (or the activation cache). */
  getState(type: string, id: string, key: string): Promise<Buffer | undefined>;
  /** Applies operations atomically to an actor's state, outside any turn; keeps the activation cache in step. */
  applyState(type: string, id: string, ops: readonly ActorStateOperation[]): Promise<void>;
  /**
   * A page of a type's index: entries with keys after `after`, ascending (byte order), at most `limit`. Reads the
   * store (shared by every replica), not any actor. A store that cannot list keys in order (a pluggable store)
   * rejects with `ERR_STATE_STORE_NOT_SUPPORTED`; there turns' index writes are skipped.
   */
  listIndex(type: string, page: IndexPage): Promise<IndexEntry[]>;
  start(): Promise<void>;
  /** Stops the reminder scheduler, refuses new turns, drains queued turns, deactivates every actor. */
  stop(): Promise<void>;
  activeCount(type: string): number;
  status(): ActorTypeStatus[];
}

/**
 * Where an actor lives. `local` means this host owns it and may run it now; otherwise `address` is the owner's
 * internal address, or absent while no live host owns the actor's partition (a caller waits for `changed`).
 */
export type PlacementResult = { local: true } | { local: false; address?: string };

/** What the runtime does when partitions come and go; the placement calls these in order, never concurrently. */
export interface PlacementHooks {
  /** This host now owns these partitions: load what they need (reminders) before they serve. */
  acquire(partitions: readonly number[]): Promise<void>;
  /** This host hands these partitions over: drain their turns and deactivate their actors, then they are released. */
  release(partitions: readonly number[]): Promise<void>;
  /** This host lost these partitions without a handover: drop their actors and reminders at once. */
  lost(partitions: readonly number[]): void;
}

export interface Placement {
  lookup(type: string, id: string): PlacementResult;
  /** Several hosts: the fence every commit on an actor carries (undefined when not owned now). */
  readonly fencing?: { fenceFor(actorId: string): Fence | undefined };
  start(hooks: PlacementHooks): Promise<void>;
  stop(): Promise<void>;
  /** Resolves at the next change of the view (ownership, hosts), after `timeoutMs`, or when `signal` aborts. */
  changed(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** Something suggests the view is stale (a fenced commit, an unreachable owner): refresh it now. */
  suspect(): void;
  /** `/v1.0/metadata` fields under `actorRuntime`. */
  metadata(): Record<string, unknown>;
}
