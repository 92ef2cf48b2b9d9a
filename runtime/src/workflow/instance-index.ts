/**
 * The instance index: one small entry per workflow instance, keyed by instance ID, in the orchestration actor
 * type's index (`ActorContext.setIndexEntry`). Every turn that persists an instance rewrites its entry in the
 * same transaction, and purge deletes it, so the index never disagrees with the instances. Listing reads it in
 * ID order, a page at a time, from any replica; it is never a scan of the store's keys.
 *
 * Instances last written by a svcd without the index are not in it until their next turn.
 */
import type { ActorRuntime } from '../actors/types.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { isTerminalStatus, type PurgeFilter, type RuntimeStatus } from './engine.js';
import { existingInstanceIdProblem } from './instance-id.js';

/** What the index knows of an instance: enough to list and filter without loading it. */
export interface IndexedInstance {
  readonly instanceId: string;
  readonly name: string;
  readonly runtimeStatus: RuntimeStatus;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  readonly parentInstanceId?: string;
}

/** The stored JSON (the instance ID is the entry's key). */
interface EntryJson {
  name: string;
  status: RuntimeStatus;
  createdAt: number;
  lastUpdatedAt: number;
  parent?: string;
}

export function encodeIndexEntry(i: Omit<IndexedInstance, 'instanceId'>): Buffer {
  const json: EntryJson = { name: i.name, status: i.runtimeStatus, createdAt: i.createdAt, lastUpdatedAt: i.lastUpdatedAt };
  if (i.parentInstanceId !== undefined) json.parent = i.parentInstanceId;
  return Buffer.from(JSON.stringify(json));
}

function decodeIndexEntry(instanceId: string, value: Buffer): IndexedInstance {
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

export function matchesPurgeFilter(i: IndexedInstance, f: PurgeFilter): boolean {
  if (!isTerminalStatus(i.runtimeStatus)) return false;
  if (f.statuses && f.statuses.length > 0 && !f.statuses.includes(i.runtimeStatus)) return false;
  if (f.createdFrom && i.createdAt < f.createdFrom.getTime()) return false;
  if (f.createdTo && i.createdAt >= f.createdTo.getTime()) return false;
  return true;
}

/** Reads the index of one orchestration actor type. */
export class InstanceIndex {
  constructor(
    private readonly runtime: ActorRuntime,
    private readonly actorType: string,
  ) {}

  /** Up to `limit` instances with IDs after `after`, ascending; `more` tells whether any follow. */
  async page(after: string | undefined, limit: number): Promise<{ instances: IndexedInstance[]; more: boolean }> {
    // One entry beyond the page says whether there is a next page, without an empty last page.
    const entries = await this.runtime.listIndex(this.actorType, { limit: limit + 1, ...(after !== undefined ? { after } : {}) });
    const more = entries.length > limit;
    return { instances: entries.slice(0, limit).map((e) => decodeIndexEntry(e.key, e.value)), more };
  }

  /** Every indexed instance, in ID order, read `pageSize` at a time. */
  async *all(pageSize: number): AsyncGenerator<IndexedInstance> {
    let after: string | undefined;
    for (;;) {
      const { instances, more } = await this.page(after, pageSize);
      yield* instances;
      if (!more || instances.length === 0) return;
      after = instances[instances.length - 1]!.instanceId;
    }
  }
}
