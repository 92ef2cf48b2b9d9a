/**
 * When a job fires: its first point (the due time, else the schedule's first point after its creation), the point
 * after each firing, and its end (repeats used up, TTL passed, a one-shot done). Points missed while no svcd ran are
 * not replayed: a late firing counts for the point it was due at, and the next point is the first after now.
 */
import { parseDueTime, parseTtl } from '../actors/durations.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { InvalidScheduleError, parseSchedule, type Schedule } from '../util/cron-schedule.js';
import type { Job } from './job.js';

/** The shortest `@every` a job may have: shorter ones would be a busy loop through the store. */
export const MIN_EVERY_MS = 100;

function invalid(job: Job, problem: string): RuntimeError {
  return new RuntimeError('DAPR_SCHEDULER_SCHEDULE_JOB', `job ${job.name}: ${problem}`);
}

function scheduleOf(job: Job): Schedule | undefined {
  if (job.schedule === undefined) return undefined;
  try {
    return parseSchedule(job.schedule, MIN_EVERY_MS);
  } catch (err) {
    if (err instanceof InvalidScheduleError) throw invalid(job, err.message);
    throw err;
  }
}

/** Reads a time field, answering in the job's words what was wrong. */
function timeField<T>(job: Job, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof RuntimeError) throw invalid(job, err.message);
    throw err;
  }
}

export function expiryOf(job: Job, createdAt: number): number | undefined {
  return timeField(job, () => parseTtl(job.ttl, createdAt));
}

/** The first point of a new job; throws when the job is malformed or could never fire. */
export function firstPoint(job: Job, createdAt: number): number {
  if (job.schedule === undefined && job.dueTime === undefined) {
    throw new RuntimeError('DAPR_SCHEDULER_SCHEDULE_EMPTY', `job ${job.name} has neither a schedule nor a due time`);
  }
  const schedule = scheduleOf(job);
  const at = job.dueTime !== undefined ? timeField(job, () => parseDueTime(job.dueTime, createdAt)) : schedule!.next(createdAt);
  const expiresAt = expiryOf(job, createdAt);
  if (expiresAt !== undefined && expiresAt <= at) throw invalid(job, 'its ttl ends before its first firing');
  return at;
}

/** The point after a firing of `at` (the `fired`-th), or undefined when the job is done. */
export function nextPoint(job: Job, createdAt: number, at: number, fired: number, now: number): number | undefined {
  if (job.repeats !== undefined && fired >= job.repeats) return undefined;
  const schedule = scheduleOf(job);
  if (!schedule) return undefined;
  // On the job's own grid while it keeps up; after missed points, the first point after now.
  let next = schedule.next(at);
  if (next <= now) next = schedule.next(now);
  const expiresAt = expiryOf(job, createdAt);
  return expiresAt !== undefined && next >= expiresAt ? undefined : next;
}

export function isExpired(job: Job, createdAt: number, now: number): boolean {
  const expiresAt = expiryOf(job, createdAt);
  return expiresAt !== undefined && now >= expiresAt;
}
