import type { TransactionOperation } from '../components/contracts/state-store.js';
import type { CoalescedReads } from './coalesced-reads.js';
import type { ActorStateTxn } from './types.js';
import { mapInSlices } from '../util/event-loop.js';
import { ownBytes } from '../util/own-bytes.js';

/** `null` caches "known absent", so a missing key is not read from the store again either. */
type Cached = Buffer | null;
/** What the cache keeps lives as long as the activation: bytes of its own (see `ownBytes`). */
const kept = (v: Buffer | null | undefined): Cached => (v ? ownBytes(v) : null);

/**
 * The state of one activation: a cache filled on first read of each key. Only committed values enter it,
 * so a turn that throws leaves it as it was. Keys `cached` refuses (the actor type's `uncachedKeyPrefixes`)
 * are read from the store every time and never kept. Reads go through `CoalescedReads`: the first reads of many
 * activations at once (a burst of reminder fires) are one store read.
 */
export class ActorStateCache {
  readonly #values = new Map<string, Cached>();

  constructor(
    private readonly reads: CoalescedReads,
    private readonly storeKey: (key: string) => string,
    private readonly cached: (key: string) => boolean = () => true,
  ) {}

  async get(key: string): Promise<Buffer | undefined> {
    const cached = this.#values.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const [item] = await this.reads.bulkGet([this.storeKey(key)]);
    if (item?.error) throw new Error(`reading actor state key ${key}: ${item.error}`);
    if (!this.cached(key)) return item?.data;
    // A write committed while the read was in flight wins over the (older) read.
    if (!this.#values.has(key)) this.#values.set(key, kept(item?.data));
    return this.#values.get(key) ?? undefined;
  }

  async getMany(keys: readonly string[]): Promise<(Buffer | undefined)[]> {
    const missing = [...new Set(keys.filter((k) => !this.#values.has(k)))];
    const read = new Map<string, Buffer | undefined>();
    if (missing.length > 0) {
      const items = await this.reads.bulkGet(missing.map((k) => this.storeKey(k)));
      missing.forEach((k, i) => {
        const item = items[i];
        if (item?.error) throw new Error(`reading actor state key ${k}: ${item.error}`);
        if (!this.cached(k)) read.set(k, item?.data);
        else if (!this.#values.has(k)) this.#values.set(k, kept(item?.data));
      });
    }
    return keys.map((k) => (read.has(k) ? read.get(k) : (this.#values.get(k) ?? undefined)));
  }

  /** Forgets every value (the activation ended; something may still hold it until its idle entry surfaces). */
  clear(): void {
    this.#values.clear();
  }

  /** Records committed writes. */
  apply(writes: ReadonlyMap<string, Cached>): void {
    for (const [k, v] of writes) if (this.cached(k)) this.#values.set(k, kept(v));
  }

  /** In slices: a workflow turn may write 200,000 keys. */
  toOperations(writes: ReadonlyMap<string, Cached>): Promise<TransactionOperation[]> {
    return mapInSlices(writes, ([k, v]): TransactionOperation =>
      v === null ? { operation: 'delete', request: { key: this.storeKey(k) } } : { operation: 'upsert', request: { key: this.storeKey(k), value: v } },
    );
  }
}

/** One turn's view: reads through the cache, writes buffered until the runtime commits them. */
export class TurnStateTxn implements ActorStateTxn {
  readonly writes = new Map<string, Cached>();

  constructor(private readonly cache: ActorStateCache) {}

  async get(key: string): Promise<Buffer | undefined> {
    const w = this.writes.get(key);
    if (w !== undefined) return w ?? undefined;
    return this.cache.get(key);
  }

  async getMany(keys: readonly string[]): Promise<(Buffer | undefined)[]> {
    const fromCache = await this.cache.getMany(keys.filter((k) => !this.writes.has(k)));
    let i = 0;
    return keys.map((k) => {
      const w = this.writes.get(k);
      if (w !== undefined) return w ?? undefined;
      return fromCache[i++];
    });
  }

  set(key: string, value: Buffer): void {
    this.writes.set(key, value);
  }

  delete(key: string): void {
    this.writes.set(key, null);
  }
}
