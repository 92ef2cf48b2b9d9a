import { ensureError } from '../errors/runtime-error.js';
import type { KeyListingStore, KeyPage, ListedKey } from '../components/contracts/state-store.js';
import { applyInOrder, type PlannedWrite } from './write-plan.js';
import { ExpirySweeper } from './expiry-sweeper.js';
import { VersionedStateStore, type StoredValue } from './versioned-store.js';

interface Entry {
  readonly value: Buffer;
  readonly version: number;
  /** Epoch ms after which the value is gone; expired entries are dropped when written over or swept. */
  readonly expiresAt?: number;
}

/**
 * `state.in-memory`: a process-local map, for tests and throwaway runs. Writes are staged, then committed at once.
 * The keys under each listed prefix are also kept in a sorted array (JavaScript string order, which is byte order
 * for the ASCII keys svcd lists).
 */
export class InMemoryStateStore extends VersionedStateStore implements KeyListingStore {
  readonly #entries = new Map<string, Entry>();
  readonly #listed = new Map<string, string[]>();
  readonly #sweeper = new ExpirySweeper(() => this.#sweepExpired(), Number.MAX_SAFE_INTEGER);

  /** Drops every expired entry (reads already treat them as absent). */
  #sweepExpired(): number {
    const now = Date.now();
    let removed = 0;
    for (const [key, e] of this.#entries) {
      if (e.expiresAt === undefined || e.expiresAt > now) continue;
      this.#entries.delete(key);
      this.#keepListed(key, false);
      removed++;
    }
    return removed;
  }

  protected read(key: string): Promise<StoredValue | undefined> {
    const e = this.#entries.get(key);
    return Promise.resolve(e && { value: Buffer.from(e.value), version: e.version, expiresAt: e.expiresAt });
  }

  protected async readMany(keys: readonly string[]): Promise<(StoredValue | undefined)[]> {
    return Promise.all(keys.map((k) => this.read(k)));
  }

  protected applyAtomically(writes: readonly PlannedWrite[]): Promise<void> {
    const staged = new Map<string, Entry | undefined>();
    const current = (key: string) => (staged.has(key) ? staged.get(key) : this.#entries.get(key));
    try {
      const now = Date.now();
      applyInOrder(writes, {
        current: (key) => {
          const e = current(key);
          return e && { version: e.version, live: e.expiresAt === undefined || e.expiresAt > now };
        },
        put: (key, value, version, expiresAt) => staged.set(key, { value: Buffer.from(value), version, ...(expiresAt !== undefined ? { expiresAt } : {}) }),
        remove: (key) => staged.set(key, undefined),
      });
    } catch (err) {
      return Promise.reject(ensureError(err));
    }
    for (const [key, entry] of staged) {
      if (entry) this.#entries.set(key, entry);
      else this.#entries.delete(key);
      this.#keepListed(key, entry !== undefined);
    }
    return Promise.resolve();
  }

  declareListedPrefix(prefix: string): void {
    if (!this.#listed.has(prefix)) this.#listed.set(prefix, [...this.#entries.keys()].filter((k) => k.startsWith(prefix) && k !== prefix).sort());
  }

  listKeys(prefix: string, page: KeyPage): Promise<ListedKey[]> {
    const keys = this.#listed.get(prefix);
    if (!keys) return Promise.reject(new Error(`key prefix '${prefix}' was not declared for listing`));
    const from = page.after === undefined ? 0 : insertionPoint(keys, page.after, true);
    return Promise.resolve(keys.slice(from, from + page.limit).map((key) => ({ key, value: Buffer.from(this.#entries.get(key)!.value) })));
  }

  #keepListed(key: string, present: boolean): void {
    for (const [prefix, keys] of this.#listed) {
      if (!key.startsWith(prefix) || key === prefix) continue;
      const at = insertionPoint(keys, key, false);
      const there = keys[at] === key;
      if (present && !there) keys.splice(at, 0, key);
      else if (!present && there) keys.splice(at, 1);
    }
  }

  close(): Promise<void> {
    this.#sweeper.stop();
    this.#entries.clear();
    this.#listed.clear();
    return Promise.resolve();
  }
}

/** The first index whose key is >= `key` (> `key` when `after`) in a sorted array. */
function insertionPoint(keys: readonly string[], key: string, after: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key || (after && keys[mid] === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
