/**
 * The instance index: one small entry per workflow instance, keyed by instance ID, in the orchestration actor
 * type's index (`ActorContext.setIndexEntry`), and the same entry in the type's `by-update` index keyed by
 * (newest first) last update time. Every turn that persists an instance rewrites its entries in the same
 * transaction, and purge deletes them, so the index never disagrees with the instances. Listing reads it a page
 * at a time, from any replica; it is never a scan of the store's keys.
 *
 * Instances last written by a svcd without the index are not in it until their next turn.
 */
import type { ActorRuntime } from '../actors/types.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { isTerminalStatus, type InstanceFilter, type InstanceSummary, type InstanceSummaryPage, type PurgeFilter, type RuntimeStatus } from './engine.js';
import { existingInstanceIdProblem } from './instance-id.js';

/** The stored JSON (the instance ID is the entry's key). */
interface EntryJson {
  name: string;
  status: RuntimeStatus;
  createdAt: number;
  lastUpdatedAt: number;
  parent?: string;
}

export function encodeIndexEntry(i: Omit<InstanceSummary, 'instanceId'>): Buffer {
  const json: EntryJson = { name: i.name, status: i.runtimeStatus, createdAt: i.createdAt, lastUpdatedAt: i.lastUpdatedAt };
  if (i.parentInstanceId !== undefined) json.parent = i.parentInstanceId;
  return Buffer.from(JSON.stringify(json));
}

function decodeIndexEntry(instanceId: string, value: Buffer): InstanceSummary {
  const j = JSON.parse(value.toString('utf8')) as EntryJson;
  return {
    instanceId,
    name: j.name,
    runtimeStatus: j.status,
    createdAt: j.createdAt,
    lastUpdatedAt: j.lastUpdatedAt,
    ...(j.parent !== undefined ? { parentInstanceId: j.parent } : {}),
  };
}

/** The named index that orders instances by last update, newest first. */
export const BY_UPDATE_INDEX = 'by-update';

/** Fixed width: the keys sort by time as text. 10^15 ms is the year 33658. */
const TIME_DIGITS = 15;
const TIME_CEILING = 10 ** TIME_DIGITS - 1;
const UPDATE_ORDER_KEY = /^(\d{15})\/(.+)$/;

/** `<ceiling - lastUpdatedAt>/<instanceId>`: ascending key order is newest update first, ties by ID. */
export function updateOrderKey(lastUpdatedAt: number, instanceId: string): string {
  return `${String(TIME_CEILING - lastUpdatedAt).padStart(TIME_DIGITS, '0')}/${instanceId}`;
}

/** Clients see the last ID of a page as an opaque token. */
export function continuationToken(lastInstanceId: string): string {
  return Buffer.from(lastInstanceId, 'utf8').toString('base64url');
}

/** The last ID of the previous page; anything that is not a token this engine issued → ERR_MALFORMED_REQUEST. */
export function instanceIdAfter(token: string): string {
  const id = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, 'base64url').toString('utf8') : '';
  if (id === '' || continuationToken(id) !== token || existingInstanceIdProblem(id)) {
    throw new RuntimeError('ERR_MALFORMED_REQUEST', `invalid continuation token '${token.slice(0, 100)}': pass back the token of the previous page unchanged`);
  }
  return id;
}

const tokenFor = (key: string): string => Buffer.from(key, 'utf8').toString('base64url');

/** The key after which a by-update listing goes on; anything that is not a token this engine issued → ERR_MALFORMED_REQUEST. */
function updateOrderKeyAfter(token: string): string {
  const key = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, 'base64url').toString('utf8') : '';
  const match = UPDATE_ORDER_KEY.exec(key);
  if (!match || Buffer.from(key, 'utf8').toString('base64url') !== token || existingInstanceIdProblem(match[2]!)) {
    throw new RuntimeError('ERR_MALFORMED_REQUEST', `invalid continuation token '${token.slice(0, 100)}': pass back the token of the previous page unchanged`);
  }
  return key;
}

export function matchesFilter(i: InstanceSummary, f: InstanceFilter): boolean {
  if (f.statuses && f.statuses.length > 0 && !f.statuses.includes(i.runtimeStatus)) return false;
  if (f.name !== undefined && i.name !== f.name) return false;
  if (f.createdFrom !== undefined && i.createdAt < f.createdFrom) return false;
  if (f.createdTo !== undefined && i.createdAt >= f.createdTo) return false;
  return f.instanceIdPrefix === undefined || i.instanceId.startsWith(f.instanceIdPrefix);
}

/**
 * What one filtered listing call reads at most: LIST_SCAN_BUDGET index entries, and no further chunk once
 * LIST_SCAN_MS have passed. A filter that matches few instances answers a short (even empty) page with a
 * continuation token rather than reading 100,000 entries in one request; the caller goes on while there is a
 * token. The time bound is what keeps a call short on any store: 10,000 entries alone took 33–55 ms of SQLite's
 * range reads on the development VM.
 */
export const LIST_SCAN_BUDGET = 10_000;
export const LIST_SCAN_MS = 20;
/** A chunk read from SQLite takes about 3 ms: the time bound overshoots by at most that much. */
const SCAN_CHUNK = 1000;

export function matchesPurgeFilter(i: InstanceSummary, f: PurgeFilter): boolean {
  if (!isTerminalStatus(i.runtimeStatus)) return false;
  if (f.statuses && f.statuses.length > 0 && !f.statuses.includes(i.runtimeStatus)) return false;
  if (f.createdFrom && i.createdAt < f.createdFrom.getTime()) return false;
  if (f.createdTo && i.createdAt >= f.createdTo.getTime()) return false;
  return true;
}

/** Reads the index of one orchestration actor type. */
export class InstanceIndex {
  constructor(
    private readonly runtime: Pick<ActorRuntime, 'listIndex'>,
    private readonly actorType: string,
    /** Milliseconds, for LIST_SCAN_MS; tests pass their own. */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Up to `limit` instances with IDs after `after`, ascending; `more` tells whether any follow. */
  async page(after: string | undefined, limit: number): Promise<{ instances: InstanceSummary[]; more: boolean }> {
    // One entry beyond the page says whether there is a next page, without an empty last page.
    const entries = await this.runtime.listIndex(this.actorType, { limit: limit + 1, ...(after !== undefined ? { after } : {}) });
    const more = entries.length > limit;
    return { instances: entries.slice(0, limit).map((e) => decodeIndexEntry(e.key, e.value)), more };
  }

  /**
   * Up to `limit` instances that match `filter`, newest update first, after the position `token` names; reads at
   * most LIST_SCAN_BUDGET entries and stops after the chunk that passes LIST_SCAN_MS (then the page may be short,
   * and the token says where to go on; every call reads at least one chunk, so following the tokens ends).
   */
  async query(filter: InstanceFilter, limit: number, token: string | undefined): Promise<InstanceSummaryPage> {
    let after = token !== undefined ? updateOrderKeyAfter(token) : undefined;
    const instances: InstanceSummary[] = [];
    const startedAt = this.now();
    let scanned = 0;
    // One entry beyond the page first (an unfiltered page is one read), then larger reads while a filter skips.
    let chunk = limit + 1;
    while (scanned < LIST_SCAN_BUDGET && (scanned === 0 || this.now() - startedAt < LIST_SCAN_MS)) {
      chunk = Math.min(chunk, SCAN_CHUNK, LIST_SCAN_BUDGET - scanned);
      const entries = await this.runtime.listIndex(this.actorType, { index: BY_UPDATE_INDEX, limit: chunk, ...(after !== undefined ? { after } : {}) });
      for (const [k, e] of entries.entries()) {
        scanned += 1;
        after = e.key;
        const match = UPDATE_ORDER_KEY.exec(e.key);
        if (!match) continue;
        const instance = decodeIndexEntry(match[2]!, e.value);
        if (!matchesFilter(instance, filter)) continue;
        instances.push(instance);
        if (instances.length === limit) {
          const more = k < entries.length - 1 || entries.length === chunk;
          return more ? { instances, continuationToken: tokenFor(e.key) } : { instances };
        }
      }
      if (entries.length < chunk) return { instances };
      chunk *= 4;
    }
    return { instances, ...(after !== undefined ? { continuationToken: tokenFor(after) } : {}) };
  }

  /** Every indexed instance, in ID order, read `pageSize` at a time. */
  async *all(pageSize: number): AsyncGenerator<InstanceSummary> {
    let after: string | undefined;
    for (;;) {
      const { instances, more } = await this.page(after, pageSize);
      yield* instances;
      if (!more || instances.length === 0) return;
      after = instances[instances.length - 1]!.instanceId;
    }
  }
}
