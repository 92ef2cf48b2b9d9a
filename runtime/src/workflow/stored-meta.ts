/**
 * An instance's stored metadata, checked before anything trusts it. Its counts drive loops and allocations (the
 * history length, the inbox ranges): a corrupt or forged value such as a history of 10^12 events or an inbox
 * range of 10^12 numbers held svcd's event loop for 30 s. A value that fails a check fails that one instance
 * with ERR_WORKFLOW_STATE_CORRUPT naming the field; svcd and the other instances go on.
 */
import { RuntimeError } from '../errors/runtime-error.js';
import type { ParentInfo } from './history.js';
import type { SeqRanges } from './seq-ranges.js';

/** An instance's metadata as stored (`metadata` key of its actor state). */
export interface InstanceMeta {
  /** Incremented by every committed turn; lets an activation detect that its in-memory copy is stale. */
  version: number;
  /** Run number of this instance ID: +1 on continue-as-new and on reuse of a terminal ID. */
  generation: number;
  name: string;
  createdAt: number;
  lastUpdatedAt: number;
  scheduledStartTime?: number;
  parent?: ParentInfo;
  historyLength: number;
  /** Sequence numbers of the inbox entries (`inbox-<seq>` keys), as ranges: a few bytes however many wait. */
  inboxRanges: SeqRanges;
  /** Metadata written before svc 0.x kept the list itself; read once and replaced by `inboxRanges`. */
  inboxSeqs?: number[];
  nextInboxSeq: number;
  customStatus?: string;
  /** Did any generation start running (continue-as-new keeps RUNNING between generations). */
  everStarted?: boolean;
  /**
   * History positions of this run's ExecutionStarted and final ExecutionCompleted: a finished instance is read
   * from these two events (`FinishedInstance`) instead of its whole history. Absent in metadata of earlier
   * versions until the instance is next written.
   */
  startedIndex?: number;
  completedIndex?: number;
  /**
   * The `lastUpdatedAt` under which the instance's entry in the update-ordered index was last written (in the
   * same transaction as this metadata): the key the next write must delete. Absent: no entry yet.
   */
  indexedAt?: number;
}

/** More events or waiting results than any instance can reach (a 100,000-activity fan-out has 200,000). */
export const MAX_STORED_EVENTS = 10_000_000;

export function decodeInstanceMeta(bytes: Buffer | undefined, instanceId: string): InstanceMeta | undefined {
  if (bytes === undefined || bytes.length === 0) return undefined;
  const corrupt = (what: string) =>
    new RuntimeError('ERR_WORKFLOW_STATE_CORRUPT', `workflow ${instanceId}: its stored metadata is corrupt (${what}); the instance cannot run until it is purged or its state repaired`);
  let meta: unknown;
  try {
    meta = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw corrupt('not JSON');
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) throw corrupt('not an object');
  const m = meta as Record<string, unknown>;
  const count = (field: string, optional = false) => {
    const v = m[field];
    if (optional && v === undefined) return;
    if (!Number.isSafeInteger(v) || (v as number) < 0) throw corrupt(`${field} is not a count`);
  };
  for (const field of ['version', 'generation', 'historyLength', 'nextInboxSeq']) count(field);
  for (const field of ['startedIndex', 'completedIndex']) count(field, true);
  if (typeof m.name !== 'string') throw corrupt('name is not a string');
  if (typeof m.createdAt !== 'number' || typeof m.lastUpdatedAt !== 'number') throw corrupt('createdAt or lastUpdatedAt is not a time');
  if (m.indexedAt !== undefined && !Number.isSafeInteger(m.indexedAt)) throw corrupt('indexedAt is not a time');
  if ((m.historyLength as number) > MAX_STORED_EVENTS) throw corrupt(`historyLength ${String(m.historyLength)} is above ${MAX_STORED_EVENTS}`);
  for (const field of ['startedIndex', 'completedIndex']) {
    if (m[field] !== undefined && (m[field] as number) >= (m.historyLength as number)) throw corrupt(`${field} is past the history`);
  }
  if (inboxSize(m) > MAX_STORED_EVENTS) throw corrupt(`the inbox holds more than ${MAX_STORED_EVENTS} entries`);
  return meta as InstanceMeta;
}

/** Entries the inbox fields describe (either form); throws on a malformed one. */
function inboxSize(m: Record<string, unknown>): number {
  const { inboxRanges, inboxSeqs } = m;
  if (inboxRanges === undefined && Array.isArray(inboxSeqs) && inboxSeqs.every((s) => Number.isSafeInteger(s))) return inboxSeqs.length;
  if (!Array.isArray(inboxRanges)) return Infinity;
  let size = 0;
  let previousEnd = -1;
  for (const range of inboxRanges as unknown[]) {
    if (!Array.isArray(range) || range.length !== 2) return Infinity;
    const [from, to] = range as unknown[];
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || (from as number) < previousEnd || (to as number) <= (from as number)) return Infinity;
    size += (to as number) - (from as number);
    previousEnd = to as number;
  }
  return size;
}
