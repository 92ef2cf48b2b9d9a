import { RuntimeError } from '../errors/runtime-error.js';
import { flattened } from '../util/flat-string.js';
import { ownBytes } from '../util/own-bytes.js';
import type { TransactionOperation, TransactionalStateStore } from '../components/contracts/state-store.js';
import { REMINDER_PARTITIONS, type ActorKeys, reminderPartitionOf } from './keys.js';
import { OWNERSHIP_PARTITIONS, isMultiHostStore, type Fence } from '../state/placement-store.js';
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
  /** The LOADED partition documents only (an empty document that is loaded has an entry with no reminders). */
  readonly partitions: Map<number, Partition>;
  /** Documents being read, so concurrent first touches share one read. */
  readonly loadingDocs: Map<number, Promise<void>>;
  /** Unloads by ownership partition: a read installs nothing of a partition unloaded meanwhile (others' don't matter). */
  readonly unloads: Map<number, number>;
  partitionCount: number;
  metaStored: boolean;
}

/**
 * Several hosts: every commit carries the fence of its actor's ownership partition. `fenceFor` answers
 * undefined when this host does not own the actor now (the commit is refused, nothing written).
 */
export interface ReminderFencing {
  fenceFor(actorId: string): Fence | undefined;
}

/** A commit was refused or failed because this host does not (or no longer) own the actor's partition. */
export function notOwnerError(type: string, actorId: string, detail: string): RuntimeError {
  return new RuntimeError('ERR_ACTOR_NOT_OWNER', `actor ${type}/${actorId} is not owned by this host: ${detail}`);
}

const entryKey = (actorId: string, name: string) => flattened(`${actorId}||${name}`);
const MAX_GROUP = 128;
/**
 * Reminder data larger than this is stored under its own key (written with the partition, in the same
 * transaction), so a large payload is not rewritten with every change to its partition.
 */
const OUT_OF_LINE_BYTES = 256;

const isOutOfLine = (r: StoredReminder) => r.data !== undefined && r.data.length > OUT_OF_LINE_BYTES;
const unloadsOf = (t: TypeReminders, ownershipPartition: number) => t.unloads.get(ownershipPartition) ?? 0;

/**
 * The durable reminder table. Every reminder of a type lives in one of a fixed number of partition documents
 * (by hash of the actor id), listed by a per-type meta key, so start-up reads `1 + partitions` keys per type and
 * never scans the store. Memory holds the authoritative copy of each LOADED document; every change is written
 * through, in the same transaction as the turn's state writes that caused it. Writes to one partition are
 * serialised; commits that queue up behind a write are grouped into the next transaction (each turn stays all or
 * nothing: if a group fails, its commits are retried one by one so one bad commit cannot fail the others).
 *
 * Several hosts: document r belongs to ownership partition r % OWNERSHIP_PARTITIONS, and only its owner loads,
 * fires and writes it. A document is loaded before anything reads or writes it (`loadOwned` when a partition is
 * acquired; lazily on first touch otherwise) and dropped when the partition goes (`unloadOwned`); a commit that
 * finds its document dropped is refused, never written over a document it did not read.
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
    private readonly fencing?: ReminderFencing,
  ) {}

  /**
   * Loads the documents of a type that belong to the given ownership partitions (those not loaded yet) and
   * returns every reminder of those partitions.
   */
  async loadOwned(type: string, ownership: readonly number[]): Promise<StoredReminder[]> {
    const t = await this.#typeTable(type);
    const wanted = new Set(ownership);
    const docs = Array.from({ length: t.partitionCount }, (_, r) => r).filter((r) => wanted.has(r % OWNERSHIP_PARTITIONS));
    await this.#ensureDocs(t, docs);
    return docs.flatMap((r) => [...(t.partitions.get(r)?.entries.values() ?? [])].map((e) => e.reminder));
  }

  /** Forgets the documents of these ownership partitions (every type); returns the reminders they held. */
  unloadOwned(ownership: readonly number[]): StoredReminder[] {
    const gone = new Set(ownership);
    const out: StoredReminder[] = [];
    for (const t of this.#types.values()) {
      for (const [r, part] of t.partitions) {
        if (!gone.has(r % OWNERSHIP_PARTITIONS)) continue;
        t.partitions.delete(r);
        for (const e of part.entries.values()) out.push(e.reminder);
      }
      for (const p of gone) t.unloads.set(p, unloadsOf(t, p) + 1);
    }
    return out;
  }

  async get(type: string, actorId: string, name: string): Promise<StoredReminder | undefined> {
    const t = await this.#typeTable(type);
    const r = reminderPartitionOf(actorId, t.partitionCount);
    await this.#ensureDocs(t, [r]);
    return t.partitions.get(r)?.entries.get(entryKey(actorId, name))?.reminder;
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
    if (changes.length > 0) await this.#ensureDocs(table, [reminderPartitionOf(actorId, table.partitionCount)]);
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
    const fences = new Map<number, Fence>();
    for (const c of group) {
      if (this.fencing) {
        const fence = this.fencing.fenceFor(c.actorId);
        if (!fence) throw notOwnerError(c.table.type, c.actorId, 'its partition is not held by this host');
        fences.set(fence.partition, fence);
      }
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
          const reminder = storedReminder(t.type, c.actorId, change.name, current!.reminder.generation, change.reminder!);
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
          const reminder = storedReminder(t.type, c.actorId, change.name, generation, change.reminder);
          next.set(k, { reminder, json: flattened(JSON.stringify(toJson(reminder))) });
          applied.set(change.name, reminder);
          // A periodic reminder's next period carries the same data object: nothing to rewrite.
          if (isOutOfLine(reminder) && current?.reminder.data !== reminder.data) ops.push({ operation: 'upsert', request: { key: dataKey, value: reminder.data! } });
          else if (!isOutOfLine(reminder) && current && isOutOfLine(current.reminder)) ops.push({ operation: 'delete', request: { key: dataKey } });
        }
      }
      results.push(applied);
      for (const op of c.stateOps) ops.push(op); // a loop: a 100,000-write turn must not become 100,000 call arguments
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
    if (ops.length > 0) await this.#transact(ops, [...fences.values()]);
    for (const t of metaTypes) t.metaStored = true;
    for (const [part, { next }] of staged) part.entries = next;
    group.forEach((c, i) => c.resolve(results[i]!));
  }

  #transact(ops: readonly TransactionOperation[], fences: readonly Fence[]): Promise<void> {
    if (fences.length === 0) return this.store.transact(ops);
    if (!isMultiHostStore(this.store)) throw new Error('fenced commit on a store that cannot check fences');
    return this.store.transactFenced(this.keys.appId, ops, fences);
  }

  /** The staged copy of an actor's partition for the group being written (copied on first touch). */
  #stage(staged: Map<Partition, { table: TypeReminders; next: Map<string, Entry>; changed: boolean }>, t: TypeReminders, actorId: string) {
    const index = reminderPartitionOf(actorId, t.partitionCount);
    const part = t.partitions.get(index);
    // Dropped since the commit was queued (the partition moved): writing it would overwrite reminders unseen.
    if (!part) throw notOwnerError(t.type, actorId, 'its reminder partition was unloaded');
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
    const t: TypeReminders = { type, partitions: new Map(), loadingDocs: new Map(), unloads: new Map(), partitionCount: REMINDER_PARTITIONS, metaStored: meta !== undefined };
    if (meta) t.partitionCount = (JSON.parse(meta.data.toString('utf8')) as { partitions: number }).partitions;
    if (t.partitionCount % OWNERSHIP_PARTITIONS !== 0) {
      throw new Error(`actor type ${type} stores its reminders in ${t.partitionCount} partitions, which ${OWNERSHIP_PARTITIONS} ownership partitions do not divide`);
    }
    return t;
  }

  /**
   * Reads the given documents of a type that are neither loaded nor being read; concurrent callers share reads. A
   * shared read dropped by an unload before this call is read again; one unloaded since, not (it left this host).
   */
  async #ensureDocs(t: TypeReminders, docs: readonly number[]): Promise<void> {
    if (docs.every((r) => t.partitions.has(r))) return; // the usual case (every reminder change asks): no allocation
    const unloadsAtCall = docs.map((r) => unloadsOf(t, r % OWNERSHIP_PARTITIONS));
    for (;;) {
      const missing = docs.filter((r, i) => !t.partitions.has(r) && !t.loadingDocs.has(r) && unloadsOf(t, r % OWNERSHIP_PARTITIONS) === unloadsAtCall[i]);
      if (missing.length > 0) {
        const reading = this.#readDocs(t, missing);
        for (const r of missing) t.loadingDocs.set(r, reading);
        void reading.finally(() => {
          for (const r of missing) if (t.loadingDocs.get(r) === reading) t.loadingDocs.delete(r);
        }).catch(() => undefined);
      }
      const pending = docs.map((r) => t.loadingDocs.get(r)).filter((p): p is Promise<void> => p !== undefined);
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }

  async #readDocs(t: TypeReminders, docs: readonly number[]): Promise<void> {
    const unloadsBefore = docs.map((r) => unloadsOf(t, r % OWNERSHIP_PARTITIONS));
    const loaded = new Map<number, Partition>(docs.map((r) => [r, { index: r, entries: new Map() }]));
    if (t.metaStored) {
      const keys = docs.map((r) => ({ key: this.keys.reminderPartition(t.type, r) }));
      const items = await this.store.bulkGet(keys);
      const outOfLine: ReminderJson[] = [];
      items.forEach((item, i) => {
        if (item.error) throw new Error(`reading reminder partition ${keys[i]!.key}: ${item.error}`);
        if (!item.data) return;
        for (const j of decodePartition(item.data)) {
          if (j.dref) outOfLine.push(j);
          else this.#restore(t, loaded, j, undefined);
        }
      });
      if (outOfLine.length > 0) {
        const data = await this.store.bulkGet(outOfLine.map((j) => ({ key: this.keys.reminderData(t.type, j.id, j.n) })));
        outOfLine.forEach((j, i) => {
          const item = data[i];
          if (item?.error) throw new Error(`reading the data of reminder ${j.n} of ${t.type}/${j.id}: ${item.error}`);
          this.#restore(t, loaded, j, item?.data);
        });
      }
    }
    // A document whose partition moved while it was read may be stale: left out.
    for (const [i, r] of docs.entries()) if (unloadsOf(t, r % OWNERSHIP_PARTITIONS) === unloadsBefore[i] && !t.partitions.has(r)) t.partitions.set(r, loaded.get(r)!);
  }

  #restore(t: TypeReminders, into: Map<number, Partition>, j: ReminderJson, outOfLineData: Buffer | undefined): void {
    const part = into.get(reminderPartitionOf(j.id, t.partitionCount));
    const reminder = fromJson(t.type, j, ++this.#generation, outOfLineData);
    part?.entries.set(entryKey(j.id, j.n), { reminder, json: flattened(JSON.stringify(j)) });
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
  return storedReminder(type, j.id, j.n, generation, {
    dueAt: j.due,
    periodMs: j.per,
    repetitionsLeft: j.reps,
    expiresAt: j.exp,
    data: outOfLineData ?? (j.data === undefined ? undefined : Buffer.from(j.data, 'base64')),
    dueTimeText: j.dt,
    periodText: j.pt,
    advanceInMemory: j.aim === 1 ? true : undefined,
  });
}

/**
 * A reminder as the table holds it, as long as it waits (a workflow waiting on a timer keeps nothing else in
 * memory): every property present, always in the same order, so all reminders share one hidden class (objects
 * made by spreading varied shapes got one each); and its data in memory of its own, since a small Buffer is a view
 * of an 8 KiB pool slab that it would keep alive. Together about 3 KB per waiting reminder.
 */
function storedReminder(actorType: string, actorId: string, name: string, generation: number, r: NonNullable<ReminderChange['reminder']>): StoredReminder {
  return {
    actorType,
    actorId,
    name,
    generation,
    dueAt: r.dueAt,
    periodMs: r.periodMs,
    repetitionsLeft: r.repetitionsLeft,
    expiresAt: r.expiresAt,
    data: r.data === undefined ? undefined : ownBytes(r.data),
    dueTimeText: r.dueTimeText,
    periodText: r.periodText,
    advanceInMemory: r.advanceInMemory,
  };
}

/** The acknowledgement of a fire of an `advanceInMemory` reminder that changes nothing but the next due time. */
function isInMemoryAdvance(change: ReminderChange, current: Entry | undefined): boolean {
  const r = change.reminder;
  if (change.ifGeneration === undefined || r === null || !current?.reminder.advanceInMemory) return false;
  const c = current.reminder;
  return r.advanceInMemory === true && r.periodMs === c.periodMs && r.repetitionsLeft === undefined && r.expiresAt === c.expiresAt && r.data === c.data;
}
