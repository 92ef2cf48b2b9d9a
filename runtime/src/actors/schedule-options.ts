/**
 * Reminder and timer options from the text fields every transport carries (`dueTime`, `period`, `ttl`, and for
 * timers `callback`): the HTTP bodies and the gRPC requests are read into these fields and parsed here, once.
 */
import { parseDueTime, parsePeriod, parseTtl } from './durations.js';
import type { ReminderOptions, TimerOptions } from './types.js';

export interface ScheduleFields {
  readonly dueTime?: string;
  readonly period?: string;
  readonly ttl?: string;
  /** JSON text, handed back to the app as JSON. */
  readonly data?: Buffer;
}

/**
 * A `ttl` given as a duration runs from the first due time, as in the anchor system (its SDKs' suites register a
 * reminder due in 2 s with a 1 s TTL and expect one fire); a `ttl` given as a time must lie after the due time.
 */
export function reminderOptions(f: ScheduleFields, now: number): ReminderOptions {
  const dueAt = parseDueTime(f.dueTime, now);
  const expiresAt = parseTtl(f.ttl, dueAt);
  return {
    dueAt,
    ...parsePeriod(f.period),
    ...(expiresAt !== undefined && { expiresAt }),
    ...(f.data !== undefined && { data: f.data }),
    ...(f.dueTime !== undefined && { dueTimeText: f.dueTime }),
    ...(f.period !== undefined && { periodText: f.period }),
  };
}

export function timerOptions(f: ScheduleFields & { readonly callback?: string }, now: number): TimerOptions {
  const opts = reminderOptions(f, now);
  return {
    ...(f.callback !== undefined && { callback: f.callback }),
    dueTimeMs: Math.max(0, (opts.dueAt ?? now) - now),
    ...(opts.periodMs !== undefined && { periodMs: opts.periodMs }),
    ...(opts.repetitions !== undefined && { repetitions: opts.repetitions }),
    ...(opts.expiresAt !== undefined && { ttlMs: opts.expiresAt - now }),
    ...(opts.data !== undefined && { data: opts.data }),
    ...(opts.dueTimeText !== undefined && { dueTimeText: opts.dueTimeText }),
    ...(opts.periodText !== undefined && { periodText: opts.periodText }),
  };
}
