import { RuntimeError } from '../errors/runtime-error.js';
import { reminderRecord } from './reminder-schedule.js';
import type { ReminderChange, ReminderTable } from './reminder-table.js';
import { TurnStateTxn, type ActorStateCache } from './state-cache.js';
import type { Actor, ActorContext, Clock, ReminderInfo, ReminderOptions, TimerOptions } from './types.js';

/** What a turn's context needs from its activation. */
export interface TimerHost {
  setTimer(name: string, opts: TimerOptions): void;
  clearTimer(name: string): void;
}

export interface TurnTarget extends TimerHost {
  readonly type: string;
  readonly id: string;
  readonly actor: Actor;
  readonly cache: ActorStateCache;
}

/** The context of one turn: buffered state writes and reminder changes, committed together by the runtime. */
export class TurnContext implements ActorContext {
  readonly state: TurnStateTxn;
  /** Last change per reminder name in this turn. */
  readonly reminderChanges = new Map<string, ReminderChange>();
  /** Set by `deactivateWhenIdle`; the runtime acts on it only when the turn committed. */
  deactivateRequested = false;
  /** `afterCommit` callbacks, run by the runtime once the turn committed. */
  readonly committed: (() => void)[] = [];
  /** Last change per index key in this turn (null: delete), by index name ('' for the unnamed index). */
  readonly indexChanges = new Map<string, Map<string, Buffer | null>>();

  readonly type: string;
  readonly id: string;

  constructor(
    private readonly target: TurnTarget,
    readonly clock: Clock,
    private readonly reminders: ReminderTable,
  ) {
    this.type = target.type;
    this.id = target.id;
    this.state = new TurnStateTxn(target.cache);
  }

  actorInvoke(method: string, data: Buffer | undefined): Promise<Buffer | undefined> {
    return this.target.actor.invoke(method, data, this);
  }

  async actorReminder(name: string, data: Buffer | undefined, info: ReminderInfo): Promise<void> {
    await this.target.actor.onReminder?.(name, data, this, info);
  }

  createReminder(name: string, opts: ReminderOptions): void {
    this.reminderChanges.set(name, { name, reminder: reminderRecord(opts, this.clock.now()) });
  }

  deleteReminder(name: string): void {
    this.reminderChanges.set(name, { name, reminder: null });
  }

  async getReminder(name: string): Promise<ReminderInfo | undefined> {
    const change = this.reminderChanges.get(name);
    if (change) return change.reminder ? { ...change.reminder, actorType: this.type, actorId: this.id, name } : undefined;
    // The stored record itself: a turn only reads it, and its extra `generation` is never shown to an app (a copy
    // without it by an object rest pattern took V8's slow path on every workflow turn).
    return this.reminders.get(this.type, this.id, name);
  }

  createTimer(name: string, opts: TimerOptions): void {
    this.target.setTimer(name, opts);
  }

  deleteTimer(name: string): void {
    this.target.clearTimer(name);
  }

  deactivateWhenIdle(): void {
    this.deactivateRequested = true;
  }

  afterCommit(fn: () => void): void {
    this.committed.push(fn);
  }

  setIndexEntry(key: string, value: Buffer | null, index = ''): void {
    if (key === '') throw new RuntimeError('ERR_MALFORMED_REQUEST', 'an actor index key must not be empty');
    let changes = this.indexChanges.get(index);
    if (!changes) this.indexChanges.set(index, (changes = new Map<string, Buffer | null>()));
    changes.set(key, value);
  }

  /** Adds the acknowledgement of a fired reminder unless the turn itself already decided that reminder's fate. */
  acknowledge(change: ReminderChange): void {
    if (!this.reminderChanges.has(change.name)) this.reminderChanges.set(change.name, change);
  }
}
