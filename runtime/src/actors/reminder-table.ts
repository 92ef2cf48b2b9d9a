import type { TransactionOperation, TransactionalStateStore } from '../state/store.js';
import { REMINDER_PARTITIONS, type ActorKeys, reminderPartitionOf } from './keys.js';
import type { ReminderInfo } from './types.js';

/** A reminder as held in memory. `generation` tells a re-created reminder from the one that was firing. */
export interface StoredReminder extends ReminderInfo {
  readonly generation: number;
}

/**
 * A change to one reminder of one actor. `reminder: null` deletes. With `ifGeneration` the change applies only
 * while the stored reminder still has that generation (a fire's acknowledgement must not undo a delete or a
 * re-create that happened while the reminder was firing).
 */
export interface ReminderChange {
  readonly name: string;
  readonly reminder: Omit<StoredReminder, 'generation' | 'actorType' | 'actorId' | 'name'> | null;
  readonly ifGeneration?: number;
}

/** The stored form, one line per reminder in a partition document. Short names: partitions are rewritten often. */
interface ReminderJson {
  id: string;
  n: string;
  due: number;
  per?: number;
  reps?: number;
  exp?: number;
  data?: string;
  dt?: string;
  pt?: string;
}

interface Partition {
  /** `<actorId>||<name>` → reminder */
  readonly reminders: Map<string, StoredReminder>;
  /** Serialises the read-modify-write of this partition's document. */
  tail: Promise<void>;
}

interface TypeReminders {
  readonly partitions: Map<number, Partition>;
  partitionCount: number;
  metaStored: boolean;
}

const entryKey = (actorId: string, name: string) => `${actorId}||${name}`;

/**
 * The durable reminder table. Every reminder of a type lives in one of a fixed number of partition documents
 * (by hash of the actor id), listed by a per-type meta key, so start-up reads `1 + partitions` keys per type and
 * never scans the store. Memory holds the authoritative copy after `load`; every change is written through under
 * the partition's lock, in the same transaction as the turn's state writes that caused it.
 */
export class ReminderTable {
  readonly #types = new Map<string, TypeReminders>();
  readonly #loading = new Map<string, Promise<TypeReminders>>();
  #generation = 0;

  constructor(
    private readonly store: TransactionalStateStore,
    private readonly keys: ActorKeys,
  ) {}

  /** Loads a type's reminders once; later calls return the same table. */
  async load(type: string): Promise<StoredReminder[]> {
    const t = await this.#typeTable(type);
    return [...t.partitions.values()].flatMap((p) => [...p.reminders.values()]);
  }

  async get(type: string, actorId: string, name: string): Promise<StoredReminder | undefined> {
    const t = await this.#typeTable(type);
    return t.partitions.get(reminderPartitionOf(actorId, t.partitionCount))?.reminders.get(entryKey(actorId, name));
  }

  /** Synchronous lookup for loaded types (the scheduler's validity check). */
  peek(type: string, actorId: string, name: string): StoredReminder | undefined {
    const t = this.#types.get(type);
    return t?.partitions.get(reminderPartitionOf(actorId, t.partitionCount))?.reminders.get(entryKey(actorId, name));
  }

  /**
   * Applies reminder changes of one actor together with `stateOps` in one store transaction.
   * Returns the reminders as they are after the commit, for the changes that applied (null: deleted).
   */
  async commit(type: string, actorId: string, changes: readonly ReminderChange[], stateOps: readonly TransactionOperation[]): Promise<Map<string, StoredReminder | null>> {
    const t = await this.#typeTable(type);
    const index = reminderPartitionOf(actorId, t.partitionCount);
    let part = t.partitions.get(index);
    if (!part) {
      part = { reminders: new Map(), tail: Promise.resolve() };
      t.partitions.set(index, part);
    }
    const p = part;
    const run = p.tail.then(() => this.#commitLocked(type, t, index, p, actorId, changes, stateOps));
    p.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async #commitLocked(
    type: string,
    t: TypeReminders,
    index: number,
    part: Partition,
    actorId: string,
    changes: readonly ReminderChange[],
    stateOps: readonly TransactionOperation[],
  ): Promise<Map<string, StoredReminder | null>> {
    const next = new Map(part.reminders);
    const applied = new Map<string, StoredReminder | null>();
    for (const c of changes) {
      const k = entryKey(actorId, c.name);
      const current = next.get(k);
      if (c.ifGeneration !== undefined && current?.generation !== c.ifGeneration) continue;
      if (c.reminder === null) {
        next.delete(k);
        applied.set(c.name, null);
      } else {
        const generation = c.ifGeneration ?? ++this.#generation;
        const stored: StoredReminder = { ...c.reminder, actorType: type, actorId, name: c.name, generation };
        next.set(k, stored);
        applied.set(c.name, stored);
      }
    }
    const ops: TransactionOperation[] = [...stateOps];
    if (applied.size > 0) {
      const key = this.keys.reminderPartition(type, index);
      ops.push(next.size === 0 ? { operation: 'delete', request: { key } } : { operation: 'upsert', request: { key, value: encodePartition(next) } });
      if (!t.metaStored) ops.push({ operation: 'upsert', request: { key: this.keys.reminderMeta(type), value: Buffer.from(JSON.stringify({ partitions: t.partitionCount })) } });
    }
    if (ops.length > 0) await this.store.transact(ops);
    if (applied.size > 0) t.metaStored = true;
    part.reminders.clear();
    for (const [k, v] of next) part.reminders.set(k, v);
    return applied;
  }

  #typeTable(type: string): Promise<TypeReminders> {
    const loaded = this.#types.get(type);
    if (loaded) return Promise.resolve(loaded);
    let loading = this.#loading.get(type);
    if (!loading) {
      loading = this.#read(type).then(
        (t) => {
          this.#types.set(type, t);
          this.#loading.delete(type);
          return t;
        },
        (err: unknown) => {
          this.#loading.delete(type);
          throw err;
        },
      );
      this.#loading.set(type, loading);
    }
    return loading;
  }

  async #read(type: string): Promise<TypeReminders> {
    const meta = await this.store.get({ key: this.keys.reminderMeta(type) });
    const t: TypeReminders = { partitions: new Map(), partitionCount: REMINDER_PARTITIONS, metaStored: meta !== undefined };
    if (!meta) return t;
    t.partitionCount = (JSON.parse(meta.data.toString('utf8')) as { partitions: number }).partitions;
    const keys = Array.from({ length: t.partitionCount }, (_, i) => ({ key: this.keys.reminderPartition(type, i) }));
    const items = await this.store.bulkGet(keys);
    items.forEach((item, i) => {
      if (item.error) throw new Error(`reading reminder partition ${keys[i]!.key}: ${item.error}`);
      if (!item.data) return;
      const reminders = new Map<string, StoredReminder>();
      for (const r of decodePartition(item.data)) {
        reminders.set(entryKey(r.id, r.n), fromJson(type, r, ++this.#generation));
      }
      t.partitions.set(i, { reminders, tail: Promise.resolve() });
    });
    return t;
  }
}

function encodePartition(reminders: ReadonlyMap<string, StoredReminder>): Buffer {
  return Buffer.from(JSON.stringify({ v: 1, reminders: [...reminders.values()].map(toJson) }));
}

function decodePartition(data: Buffer): ReminderJson[] {
  return (JSON.parse(data.toString('utf8')) as { reminders: ReminderJson[] }).reminders;
}

function toJson(r: StoredReminder): ReminderJson {
  const j: ReminderJson = { id: r.actorId, n: r.name, due: r.dueAt };
  if (r.periodMs !== undefined) j.per = r.periodMs;
  if (r.repetitionsLeft !== undefined) j.reps = r.repetitionsLeft;
  if (r.expiresAt !== undefined) j.exp = r.expiresAt;
  if (r.data !== undefined) j.data = r.data.toString('base64');
  if (r.dueTimeText !== undefined) j.dt = r.dueTimeText;
  if (r.periodText !== undefined) j.pt = r.periodText;
  return j;
}

function fromJson(type: string, j: ReminderJson, generation: number): StoredReminder {
  return {
    actorType: type,
    actorId: j.id,
    name: j.n,
    dueAt: j.due,
    generation,
    ...(j.per !== undefined && { periodMs: j.per }),
    ...(j.reps !== undefined && { repetitionsLeft: j.reps }),
    ...(j.exp !== undefined && { expiresAt: j.exp }),
    ...(j.data !== undefined && { data: Buffer.from(j.data, 'base64') }),
    ...(j.dt !== undefined && { dueTimeText: j.dt }),
    ...(j.pt !== undefined && { periodText: j.pt }),
  };
}
