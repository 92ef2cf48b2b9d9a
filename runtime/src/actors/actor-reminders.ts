/**
 * The durable reminders of the actors this host owns: changes committed through the reminder table (with a turn's
 * state writes, fenced), the scheduler kept in step with what applied, due fires run as turns of their actors (at
 * most `maxInFlight` at once, the rest waiting in due-time order) and failed fires retried with backoff.
 */
import type { TransactionOperation, TransactionalStateStore } from '../components/contracts/state-store.js';
import { ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { FencedError } from '../state/placement-store.js';
import type { ActorKeys } from './keys.js';
import type { ActorMetrics } from './metrics.js';
import { ReminderScheduler, type ScheduledFire } from './reminder-scheduler.js';
import { afterFire, isExpired, reminderRecord } from './reminder-schedule.js';
import { ReminderTable, notOwnerError, type ReminderChange, type StoredReminder } from './reminder-table.js';
import type { TurnContext } from './turn-context.js';
import type { Clock, Placement, ReminderInfo, ReminderOptions } from './types.js';

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

/** What the reminders need of the runtime whose actors they belong to. */
export interface ReminderHost {
  readonly clock: Clock;
  readonly log: Logger;
  readonly metrics: ActorMetrics;
  /** Is the runtime stopping (fires due now are not retried)? */
  isStopping(): boolean;
  /** Runs `body` as a reminder turn of the actor. */
  enqueueReminderTurn(type: string, actorId: string, body: (ctx: TurnContext) => Promise<undefined>): Promise<unknown>;
  /** Does the actor type hold this lease's work in hand (`ActorTypeOptions.leaseIdle`)? */
  leaseIdle(type: string, actorId: string, name: string): boolean;
  /** A commit was refused by a fence: this host no longer owns the partition. */
  fenced(): void;
}

const retryKey = (type: string, actorId: string, name: string) => `${type}||${actorId}||${name}`;

export class ActorReminders {
  readonly table: ReminderTable;
  readonly #scheduler: ReminderScheduler;
  readonly #retryAttempts = new Map<string, number>();
  /**
   * Leases parked while their work is in hand (`ActorTypeOptions.leaseIdle`): out of the scheduler until
   * `wakeLease`. Weak, by the stored reminder: a commit that replaces or deletes the reminder unparks it.
   */
  readonly #parked = new WeakSet<StoredReminder>();
  readonly #backlog: ScheduledFire[] = [];
  #backlogHead = 0;
  #inFlight = 0;

  constructor(
    store: TransactionalStateStore,
    keys: ActorKeys,
    placement: Placement,
    private readonly host: ReminderHost,
    private readonly maxInFlight: number,
  ) {
    this.table = new ReminderTable(store, keys, placement.fencing);
    this.#scheduler = new ReminderScheduler(host.clock, (fire) => this.#dispatch(fire));
  }

  start(): void {
    this.#scheduler.start();
  }

  stop(): void {
    this.#scheduler.stop();
  }

  create(type: string, actorId: string, name: string, opts: ReminderOptions): Promise<void> {
    return this.commit(type, actorId, [{ name, reminder: reminderRecord(opts, this.host.clock.now()) }], []);
  }

  delete(type: string, actorId: string, name: string): Promise<void> {
    return this.commit(type, actorId, [{ name, reminder: null }], []);
  }

  async get(type: string, actorId: string, name: string): Promise<ReminderInfo | undefined> {
    const stored = await this.table.get(type, actorId, name);
    if (!stored) return undefined;
    const { generation: _generation, ...info } = stored;
    return info;
  }

  /** Commits reminder changes (with state operations) and brings the scheduler in step with what applied. */
  async commit(type: string, actorId: string, changes: readonly ReminderChange[], stateOps: readonly TransactionOperation[]): Promise<void> {
    let applied: Map<string, StoredReminder | null>;
    try {
      applied = await this.table.commit(type, actorId, changes, stateOps);
    } catch (err) {
      if (!(err instanceof FencedError)) throw err;
      // Another replica owns the partition now: nothing was written; find out at once.
      this.host.fenced();
      throw notOwnerError(type, actorId, err.message);
    }
    for (const [name, reminder] of applied) {
      this.#retryAttempts.delete(retryKey(type, actorId, name));
      if (reminder) this.#schedule(reminder, reminder.dueAt);
      else this.#scheduler.unschedule({ type, actorId, name });
    }
  }

  /** Schedules the stored reminders of `type` in these ownership partitions (just acquired). */
  async load(type: string, partitions: readonly number[]): Promise<void> {
    if (partitions.length === 0) return;
    const reminders = await this.table.loadOwned(type, partitions);
    const now = this.host.clock.now();
    for (const r of reminders) {
      // A reminder rescheduled since the load started is already in the scheduler with its newer generation.
      if (this.table.peek(type, r.actorId, r.name)?.generation !== r.generation) continue;
      // A lease (advanceInMemory) guards work the previous owner held in memory, which is gone: fire it at once.
      this.#schedule(r, r.advanceInMemory ? Math.min(r.dueAt, now) : r.dueAt);
    }
    if (reminders.length > 0) this.host.log.info({ actorType: type, reminders: reminders.length, partitions: partitions.length }, 'actor reminders loaded');
  }

  /** Forgets the reminders of partitions that left this host. */
  unload(partitions: readonly number[]): void {
    for (const r of this.table.unloadOwned(partitions)) {
      this.#scheduler.unschedule({ type: r.actorType, actorId: r.actorId, name: r.name });
      this.#retryAttempts.delete(retryKey(r.actorType, r.actorId, r.name));
    }
  }

  #schedule(r: StoredReminder, at: number): void {
    this.#scheduler.schedule({ type: r.actorType, actorId: r.actorId, name: r.name, generation: r.generation, at });
  }

  /**
   * The work a lease guards left its actor type's hands: a parked lease resumes its period (its next fire at most
   * one period from now; the due time moves in memory only, as for any fire of such a lease).
   */
  wakeLease(type: string, actorId: string, name: string): void {
    const r = this.table.peek(type, actorId, name);
    if (!r || !this.#parked.delete(r)) return;
    this.#schedule(r, afterFire(r, this.host.clock.now())?.dueAt ?? this.host.clock.now());
  }

  /** Due fires wait in a FIFO (they arrive in due-time order) while too many reminder turns are in flight. */
  #dispatch(fire: ScheduledFire): void {
    if (this.#parkIfIdle(fire)) return;
    if (this.#inFlight >= this.maxInFlight) {
      this.#backlog.push(fire);
      return;
    }
    this.#inFlight++;
    void this.#run(fire).finally(() => {
      this.#inFlight--;
      const next = this.#backlog[this.#backlogHead];
      if (next === undefined || this.host.isStopping()) return;
      this.#backlogHead++;
      if (this.#backlogHead === this.#backlog.length) {
        this.#backlog.length = 0;
        this.#backlogHead = 0;
      }
      this.#dispatch(next);
    });
  }

  #run(fire: ScheduledFire): Promise<void> {
    const key = retryKey(fire.type, fire.actorId, fire.name);
    return this.host.enqueueReminderTurn(fire.type, fire.actorId, (ctx) => this.#turn(ctx, fire)).then(
      () => void this.#retryAttempts.delete(key),
      (err: unknown) => {
        if (this.host.isStopping()) return;
        const current = this.table.peek(fire.type, fire.actorId, fire.name);
        if (current?.generation !== fire.generation) return;
        const attempt = (this.#retryAttempts.get(key) ?? 0) + 1;
        this.#retryAttempts.set(key, attempt);
        const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (attempt - 1));
        this.host.log.warn({ actorType: fire.type, actorId: fire.actorId, reminder: fire.name, attempt, retryInMs: delay, err: ensureError(err).message }, 'actor reminder failed; retrying');
        this.#schedule(current, this.host.clock.now() + delay);
      },
    );
  }

  /**
   * Parks a lease whose actor type says the work it guards is in hand (`ActorTypeOptions.leaseIdle`): the fire would
   * change nothing, so it runs no turn, writes nothing and is not scheduled again until `wakeLease`. 100,000
   * instances waiting for a workflow worker then cost the scheduler nothing while they wait.
   */
  #parkIfIdle(fire: ScheduledFire): boolean {
    const r = this.table.peek(fire.type, fire.actorId, fire.name);
    if (!r?.advanceInMemory || r.generation !== fire.generation) return false;
    if (isExpired(r, this.host.clock.now()) || !this.host.leaseIdle(fire.type, fire.actorId, fire.name)) return false;
    this.#parked.add(r);
    return true;
  }

  async #turn(ctx: TurnContext, fire: ScheduledFire): Promise<undefined> {
    const r = this.table.peek(fire.type, fire.actorId, fire.name);
    // Deleted or replaced while queued: the replacement has its own schedule.
    if (!r || r.generation !== fire.generation) return undefined;
    const now = this.host.clock.now();
    if (isExpired(r, now)) {
      ctx.acknowledge({ name: r.name, reminder: null, ifGeneration: r.generation });
      return undefined;
    }
    this.host.metrics.reminderLag(r.actorType, now - r.dueAt);
    // The stored record as the fire's info (an actor reads what it needs; the app channel sends only the texts):
    // a copy without the generation by an object rest pattern took V8's slow path on every fire.
    await ctx.actorReminder(r.name, r.data, r);
    ctx.acknowledge({ name: r.name, reminder: afterFire(r, now), ifGeneration: r.generation });
    return undefined;
  }
}
