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
  /** The data lives in its own key (it is larger than OUT_OF_LINE_BYTES). */
  dref?: 1;
  dt?: string;
  pt?: string;
  /** advanceInMemory */
  aim?: 1;
}

interface Entry {
  readonly reminder: StoredReminder;
  /** Its line in the partition document, kept so a rewrite does not re-encode every reminder. */
  readonly json: string;
}

interface PendingCommit {
  readonly table: TypeReminders;
  readonly actorId: string;
  readonly changes: readonly ReminderChange[];
  readonly stateOps: readonly TransactionOperation[];
  readonly resolve: (applied: Map<string, StoredReminder | null>) => void;
  readonly reject: (err: unknown) => void;
}

interface Partition {
  readonly index: number;
  /** `<actorId>||<name>` → entry */
  entries: Map<string, Entry>;
}

interface TypeReminders {
  readonly type: string;
  readonly partitions: Map<number, Partition>;
  partitionCount: number;
  metaStored: boolean;
}

const entryKey = (actorId: string, name: string) => `${actorId}||${name}`;
const MAX_GROUP = 128;
/**
 * Reminder data larger than this is stored under its own key (written with the partition, in the same
 * transaction), so a large payload is not rewritten with every change to its partition.
 */
const OUT_OF_LINE_BYTES = 256;

const isOutOfLine = (r: StoredReminder) => r.data !== undefined && r.data.length > OUT_OF_LINE_BYTES;

/**
 * The durable reminder table. Every reminder of a type lives in one of a fixed number of partition documents
 * (by hash of the actor id), listed by a per-type meta key, so start-up reads `1 + partitions` keys per type and
 * never scans the store. Memory holds the authoritative copy after `load`; every change is written through, in
 * the same transaction as the turn's state writes that caused it. Writes to one partition are serialised; commits
 * that queue up behind a write are grouped into the next transaction (each turn stays all or nothing: if a group
 * fails, its commits are retried one by one so one bad commit cannot fail the others).
 */
export class ReminderTable {
  readonly #types = new Map<string, TypeReminders>();
  /** Commits waiting for the transaction in flight; they are written together (group commit). */
  readonly #queue: PendingCommit[] = [];
  #flushing = false;
  readonly #loading = new Map<string, Promise<TypeReminders>>();
  #generation = 0;

  constructor(
    private readonly store: TransactionalStateStore,
    private readonly keys: ActorKeys,
  ) {}

  /** Loads a type's reminders once; later calls return the same table. */
  async load(type: string): Promise<StoredReminder[]> {
    const t = await this.#typeTable(type);
    return [...t.partitions.values()].flatMap((p) => [...p.entries.values()].map((e) => e.reminder));
  }

  async get(type: string, actorId: string, name: string): Promise<StoredReminder | undefined> {
    const t = await this.#typeTable(type);
    return t.partitions.get(reminderPartitionOf(actorId, t.partitionCount))?.entries.get(entryKey(actorId, name))?.reminder;
  }

  /** Synchronous lookup for loaded types (the scheduler's validity check). */
  peek(type: string, actorId: string, name: string): StoredReminder | undefined {
    const t = this.#types.get(type);
    return t?.partitions.get(reminderPartitionOf(actorId, t.partitionCount))?.entries.get(entryKey(actorId, name))?.reminder;
  }

  /**
   * Applies reminder changes of one actor together with `stateOps` in one store transaction.
   * Returns the reminders as they are after the commit, for the changes that applied (null: deleted).
   */
  async commit(type: string, actorId: string, changes: readonly ReminderChange[], stateOps: readonly TransactionOperation[]): Promise<Map<string, StoredReminder | null>> {
    const table = await this.#typeTable(type);
    return new Promise((resolve, reject) => {
      this.#queue.push({ table, actorId, changes, stateOps, resolve, reject });
      if (!this.#flushing) void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#flushing = true;
    while (this.#queue.length > 0) {
      const group = this.#queue.splice(0, this.#groupSize(this.#queue));
      try {
        await this.#write(group);
      } catch (err) {
        if (group.length === 1) group[0]!.reject(err);
        else {
          for (const one of group) {
            try {
              await this.#write([one]);
            } catch (oneErr) {
              one.reject(oneErr);
            }
          }
        }
      }
    }
    this.#flushing = false;
  }

  /** How many queued commits fit in one transaction (the store's operation limit, if any, and MAX_GROUP). */
  #groupSize(queue: readonly PendingCommit[]): number {
    const limit = this.store.multiMaxSize?.();
    if (limit === undefined) return MAX_GROUP;
    let ops = 0;
    let n = 0;
    for (const c of queue) {
      // A change may add or drop an out-of-line data key; each commit may touch a partition document and a meta key.
      ops += c.stateOps.length + c.changes.length + (c.changes.length > 0 ? 2 : 0);
      if (n > 0 && (ops > limit || n >= MAX_GROUP)) break;
      n++;
    }
    return Math.max(1, n);
  }

  /**
   * One transaction for a group of commits (of any actors, types and partitions); each partition document a group
   * changes is written once. Memory changes only after the transaction succeeded.
   */
  async #write(group: readonly PendingCommit[]): Promise<void> {
    const staged = new Map<Partition, { table: TypeReminders; next: Map<string, Entry>; changed: boolean }>();
    const results: Map<string, StoredReminder | null>[] = [];
    const ops: TransactionOperation[] = [];
    for (const c of group) {
      const applied = new Map<string, StoredReminder | null>();
      const t = c.table;
      const stage = c.changes.length > 0 ? this.#stage(staged, t, c.actorId) : undefined;
      for (const change of c.changes) {
        const next = stage!.next;
        const k = entryKey(c.actorId, change.name);
        const current = next.get(k);
        if (change.ifGeneration !== undefined && current?.reminder.generation !== change.ifGeneration) continue;
        if (isInMemoryAdvance(change, current)) {
          // Only the next due time moved: memory changes, the stored line (with the first due time) stays.
          const reminder: StoredReminder = { ...change.reminder!, actorType: t.type, actorId: c.actorId, name: change.name, generation: current!.reminder.generation };
          next.set(k, { reminder, json: current!.json });
          applied.set(change.name, reminder);
          continue;
        }
        stage!.changed = true;
        const dataKey = this.keys.reminderData(t.type, c.actorId, change.name);
        if (change.reminder === null) {
          next.delete(k);
          applied.set(change.name, null);
          if (current && isOutOfLine(current.reminder)) ops.push({ operation: 'delete', request: { key: dataKey } });
        } else {
          const generation = change.ifGeneration ?? ++this.#generation;
          const reminder: StoredReminder = { ...change.reminder, actorType: t.type, actorId: c.actorId, name: change.name, generation };
          next.set(k, { reminder, json: JSON.stringify(toJson(reminder)) });
          applied.set(change.name, reminder);
          // A periodic reminder's next period carries the same data object: nothing to rewrite.
          if (isOutOfLine(reminder) && current?.reminder.data !== reminder.data) ops.push({ operation: 'upsert', request: { key: dataKey, value: reminder.data! } });
          else if (!isOutOfLine(reminder) && current && isOutOfLine(current.reminder)) ops.push({ operation: 'delete', request: { key: dataKey } });
        }
      }
      results.push(applied);
      ops.push(...c.stateOps);
    }
    const metaTypes = new Set<TypeReminders>();
    for (const [part, { table: t, next, changed }] of staged) {
      if (!changed) continue;
      const key = this.keys.reminderPartition(t.type, part.index);
      ops.push(next.size === 0 ? { operation: 'delete', request: { key } } : { operation: 'upsert', request: { key, value: encodePartition(next) } });
      if (!t.metaStored) metaTypes.add(t);
    }
    for (const t of metaTypes) {
      ops.push({ operation: 'upsert', request: { key: this.keys.reminderMeta(t.type), value: Buffer.from(JSON.stringify({ partitions: t.partitionCount })) } });
    }
    if (ops.length > 0) await this.store.transact(ops);
    for (const t of metaTypes) t.metaStored = true;
    for (const [part, { next }] of staged) part.entries = next;
    group.forEach((c, i) => c.resolve(results[i]!));
  }

  /** The staged copy of an actor's partition for the group being written (copied on first touch). */
  #stage(staged: Map<Partition, { table: TypeReminders; next: Map<string, Entry>; changed: boolean }>, t: TypeReminders, actorId: string) {
    const index = reminderPartitionOf(actorId, t.partitionCount);
    let part = t.partitions.get(index);
    if (!part) {
      part = { index, entries: new Map() };
      t.partitions.set(index, part);
    }
    let stage = staged.get(part);
    if (!stage) staged.set(part, (stage = { table: t, next: new Map(part.entries), changed: false }));
    return stage;
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
    const t: TypeReminders = { type, partitions: new Map(), partitionCount: REMINDER_PARTITIONS, metaStored: meta !== undefined };
    if (!meta) return t;
    t.partitionCount = (JSON.parse(meta.data.toString('utf8')) as { partitions: number }).partitions;
    const keys = Array.from({ length: t.partitionCount }, (_, i) => ({ key: this.keys.reminderPartition(type, i) }));
    const items = await this.store.bulkGet(keys);
    const outOfLine: ReminderJson[] = [];
    items.forEach((item, i) => {
      if (item.error) throw new Error(`reading reminder partition ${keys[i]!.key}: ${item.error}`);
      if (!item.data) return;
      t.partitions.set(i, { index: i, entries: new Map() });
      for (const j of decodePartition(item.data)) {
        if (j.dref) outOfLine.push(j);
        else this.#restore(t, j, undefined);
      }
    });
    if (outOfLine.length > 0) {
      const data = await this.store.bulkGet(outOfLine.map((j) => ({ key: this.keys.reminderData(type, j.id, j.n) })));
      outOfLine.forEach((j, i) => {
        const item = data[i];
        if (item?.error) throw new Error(`reading the data of reminder ${j.n} of ${type}/${j.id}: ${item.error}`);
        this.#restore(t, j, item?.data);
      });
    }
    return t;
  }

  #restore(t: TypeReminders, j: ReminderJson, outOfLineData: Buffer | undefined): void {
    const part = t.partitions.get(reminderPartitionOf(j.id, t.partitionCount));
    const reminder = fromJson(t.type, j, ++this.#generation, outOfLineData);
    part?.entries.set(entryKey(j.id, j.n), { reminder, json: JSON.stringify(j) });
  }
}

function encodePartition(entries: ReadonlyMap<string, Entry>): Buffer {
  return Buffer.from(`{"v":1,"reminders":[${[...entries.values()].map((e) => e.json).join(',')}]}`);
}

function decodePartition(data: Buffer): ReminderJson[] {
  return (JSON.parse(data.toString('utf8')) as { reminders: ReminderJson[] }).reminders;
}

function toJson(r: StoredReminder): ReminderJson {
  const j: ReminderJson = { id: r.actorId, n: r.name, due: r.dueAt };
  if (r.periodMs !== undefined) j.per = r.periodMs;
  if (r.repetitionsLeft !== undefined) j.reps = r.repetitionsLeft;
  if (r.expiresAt !== undefined) j.exp = r.expiresAt;
  if (isOutOfLine(r)) j.dref = 1;
  else if (r.data !== undefined) j.data = r.data.toString('base64');
  if (r.dueTimeText !== undefined) j.dt = r.dueTimeText;
  if (r.periodText !== undefined) j.pt = r.periodText;
  if (r.advanceInMemory) j.aim = 1;
  return j;
}

function fromJson(type: string, j: ReminderJson, generation: number, outOfLineData: Buffer | undefined): StoredReminder {
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
    ...(outOfLineData !== undefined && { data: outOfLineData }),
    ...(j.dt !== undefined && { dueTimeText: j.dt }),
    ...(j.pt !== undefined && { periodText: j.pt }),
    ...(j.aim === 1 && { advanceInMemory: true }),
  };
}

/** The acknowledgement of a fire of an `advanceInMemory` reminder that changes nothing but the next due time. */
function isInMemoryAdvance(change: ReminderChange, current: Entry | undefined): boolean {
  const r = change.reminder;
  if (change.ifGeneration === undefined || r === null || !current?.reminder.advanceInMemory) return false;
  const c = current.reminder;
  return r.advanceInMemory === true && r.periodMs === c.periodMs && r.repetitionsLeft === undefined && r.expiresAt === c.expiresAt && r.data === c.data;
}
