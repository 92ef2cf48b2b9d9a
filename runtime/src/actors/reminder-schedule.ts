import { RuntimeError } from '../errors/runtime-error.js';
import type { ReminderChange, StoredReminder } from './reminder-table.js';
import type { EpochMs, ReminderOptions } from './types.js';

export type ReminderRecord = NonNullable<ReminderChange['reminder']>;

/** Turns caller options into the stored record; rejects what could never fire sensibly. */
export function reminderRecord(opts: ReminderOptions, now: EpochMs): ReminderRecord {
  const dueAt = opts.dueAt ?? now + (opts.dueTimeMs ?? 0);
  const expiresAt = opts.expiresAt ?? (opts.ttlMs !== undefined ? now + opts.ttlMs : undefined);
  if (!Number.isFinite(dueAt)) throw malformed('due time is not a valid time');
  if (opts.periodMs !== undefined && (!Number.isFinite(opts.periodMs) || opts.periodMs <= 0)) throw malformed('period must be positive');
  if (opts.repetitions !== undefined && (!Number.isInteger(opts.repetitions) || opts.repetitions < 1)) throw malformed('repetitions must be a positive integer');
  if (opts.repetitions !== undefined && opts.periodMs === undefined) throw malformed('repetitions need a period');
  if (expiresAt !== undefined && expiresAt <= dueAt) throw malformed('the TTL must end after the due time');
  return {
    dueAt,
    ...(opts.periodMs !== undefined && { periodMs: opts.periodMs }),
    ...(opts.repetitions !== undefined && { repetitionsLeft: opts.repetitions }),
    ...(expiresAt !== undefined && { expiresAt }),
    ...(opts.data !== undefined && { data: opts.data }),
    ...(opts.dueTimeText !== undefined && { dueTimeText: opts.dueTimeText }),
    ...(opts.periodText !== undefined && { periodText: opts.periodText }),
    ...(opts.advanceInMemory === true && opts.periodMs !== undefined && opts.repetitions === undefined && { advanceInMemory: true }),
  };
}

/**
 * The reminder after an acknowledged fire at `now`: `null` when it is done (one-shot, repetitions used up, or
 * the next due time lies past its expiry). Periods missed while the process was down are not replayed: the
 * next due time is the first one after `now` on the reminder's original grid.
 */
export function afterFire(r: StoredReminder, now: EpochMs): ReminderRecord | null {
  if (r.periodMs === undefined) return null;
  const left = r.repetitionsLeft === undefined ? undefined : r.repetitionsLeft - 1;
  if (left !== undefined && left <= 0) return null;
  const missed = Math.max(0, Math.floor((now - r.dueAt) / r.periodMs));
  const dueAt = r.dueAt + (missed + 1) * r.periodMs;
  if (r.expiresAt !== undefined && dueAt >= r.expiresAt) return null;
  const { actorType: _t, actorId: _i, name: _n, generation: _g, ...rest } = r;
  return { ...rest, dueAt, ...(left !== undefined && { repetitionsLeft: left }) };
}

export function isExpired(r: StoredReminder, now: EpochMs): boolean {
  return r.expiresAt !== undefined && now >= r.expiresAt;
}

function malformed(reason: string): RuntimeError {
  return new RuntimeError('ERR_MALFORMED_REQUEST', `invalid reminder: ${reason}`);
}
