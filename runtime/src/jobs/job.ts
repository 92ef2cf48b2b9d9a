/**
 * A job as the APIs take it and give it back (the texts the client wrote, kept as written), and the record its actor
 * stores: the job, when it was created, and where it is in its schedule.
 */

import type { JobPayload } from '../app/app-events.js';

/** The job's payload: an Any (a JSON job scheduled over HTTP is a google.protobuf.Value). */
export type JobData = JobPayload;

export type FailurePolicy =
  | { readonly kind: 'drop' }
  /** `maxRetries` absent: retried until the app takes it. */
  | { readonly kind: 'constant'; readonly intervalMs: number; readonly maxRetries?: number };

export interface Job {
  readonly name: string;
  readonly schedule?: string;
  readonly repeats?: number;
  readonly dueTime?: string;
  readonly ttl?: string;
  readonly data?: JobData;
  readonly failurePolicy?: FailurePolicy;
}

/** When the app does not take a firing and the job says nothing: three more tries, a second apart (the reference's default). */
export const DEFAULT_FAILURE_POLICY: FailurePolicy = { kind: 'constant', intervalMs: 1000, maxRetries: 3 };

export interface JobRecord {
  readonly job: Job;
  readonly createdAt: number;
  /** The schedule point being fired (or next to fire). */
  readonly at: number;
  /** Firings done (taken, or given up by the failure policy). */
  readonly fired: number;
  /** Failed attempts at the firing of `at`. */
  readonly attempt: number;
}

interface StoredRecord {
  v: 1;
  job: Omit<Job, 'data'> & { data?: { t: string; v: string } };
  createdAt: number;
  at: number;
  fired: number;
  attempt: number;
}

export function encodeRecord(r: JobRecord): Buffer {
  const { data, ...rest } = r.job;
  const stored: StoredRecord = { v: 1, job: { ...rest, ...(data && { data: { t: data.typeUrl, v: data.value.toString('base64') } }) }, createdAt: r.createdAt, at: r.at, fired: r.fired, attempt: r.attempt };
  return Buffer.from(JSON.stringify(stored));
}

export function decodeRecord(bytes: Buffer): JobRecord {
  const s = JSON.parse(bytes.toString('utf8')) as StoredRecord;
  const { data, ...rest } = s.job;
  return { job: { ...rest, ...(data && { data: { typeUrl: data.t, value: Buffer.from(data.v, 'base64') } }) }, createdAt: s.createdAt, at: s.at, fired: s.fired, attempt: s.attempt };
}
