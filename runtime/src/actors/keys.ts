/**
 * Store key layout of the actor runtime (docs/actors.md, "State layout").
 *
 *   <appId>||<actorType>||<actorId>||<key>            one actor state key (the layout Dapr uses)
 *   <appId>|||reminders||<actorType>||meta             reminder partition count of a type (absent: no reminders)
 *   <appId>|||reminders||<actorType>||<n>              reminder partition n of a type: every reminder of the
 *                                                      actors whose id hashes to n, one JSON document
 *   <appId>|||reminders||<actorType>||data||<id>||<name>   the data of one reminder when it is large
 *   <appId>|||index||<actorType>||<key>                one entry of a type's index (`ActorContext.setIndexEntry`),
 *                                                      listed in key order (`ActorRuntime.listIndex`)
 *   <appId>|||index||<actorType>|<name>||<key>         one entry of a type's named index (`ActorTypeOptions.indexes`)
 *
 * Actor types may not contain '|', so the reminder and index keys (`|||`) never collide with a state key.
 */
import { createHash } from 'node:crypto';
import { RuntimeError } from '../errors/runtime-error.js';

/**
 * For types whose reminders are stored for the first time (a stored type keeps its count). A change rewrites its
 * partition's document, so partitions are many and small: 10,000 pending reminders are ~10 per document.
 */
export const REMINDER_PARTITIONS = 1024;

export function assertValidActorType(type: string): void {
  if (type === '' || type.includes('|') || type.includes('/')) {
    throw new RuntimeError('ERR_MALFORMED_REQUEST', `invalid actor type '${type}': must be non-empty without '|' or '/'`);
  }
}

/** Names of a type's extra indexes: short, lower-case, no separators. */
export function assertValidIndexName(name: string): void {
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(name)) throw new RuntimeError('ERR_MALFORMED_REQUEST', `invalid actor index name '${name}': lower-case letters, digits and dashes`);
}

export function assertValidActorId(id: string): void {
  if (id === '' || id.includes('||')) throw new RuntimeError('ERR_MALFORMED_REQUEST', `invalid actor id '${id}': must be non-empty without '||'`);
}

export class ActorKeys {
  constructor(readonly appId: string) {}

  state(type: string, id: string, key: string): string {
    return `${this.appId}||${type}||${id}||${key}`;
  }

  reminderMeta(type: string): string {
    return `${this.appId}|||reminders||${type}||meta`;
  }

  reminderPartition(type: string, partition: number): string {
    return `${this.appId}|||reminders||${type}||${partition}`;
  }

  /**
   * Every entry of a type's index (or of its named index) starts with this. A named index's prefix is no
   * prefix of the unnamed one's: the type is followed by `|<name>||` there and by `||` here.
   */
  indexPrefix(type: string, index = ''): string {
    return index === '' ? `${this.appId}|||index||${type}||` : `${this.appId}|||index||${type}|${index}||`;
  }

  index(type: string, key: string, index = ''): string {
    return this.indexPrefix(type, index) + key;
  }

  /** A large reminder payload, kept out of its partition document. */
  reminderData(type: string, actorId: string, name: string): string {
    return `${this.appId}|||reminders||${type}||data||${actorId}||${name}`;
  }
}

/** Actor ids whose hash is remembered; the oldest is forgotten first (about 100 bytes each). */
const HASHES_KEPT = 8192;
const hashes = new Map<string, number>();

/**
 * The first 32 bits of sha1(actorId): stable across processes and versions, since reminder and ownership
 * partitions are stored. Remembered for the last ids asked about: one workflow turn asks several times (ownership
 * lookup, fencing, reminders), and a SHA-1 per ask was about 6 % of svcd's CPU under a workflow load.
 */
export function actorIdHash(actorId: string): number {
  let hash = hashes.get(actorId);
  if (hash === undefined) {
    hash = createHash('sha1').update(actorId).digest().readUInt32BE(0);
    if (hashes.size >= HASHES_KEPT) hashes.delete(hashes.keys().next().value!);
    hashes.set(actorId, hash);
  }
  return hash;
}

/** Stable across processes and versions: the partition of an actor's reminders must not move on restart. */
export function reminderPartitionOf(actorId: string, partitions: number): number {
  return actorIdHash(actorId) % partitions;
}
