import { ensureError } from '../errors/runtime-error.js';
import type { KeyListingStore, KeyPage, ListedKey } from './store.js';
import { applyInOrder, type PlannedWrite } from './write-plan.js';
import { VersionedStateStore, type StoredValue } from './versioned-store.js';

interface Entry {
  readonly value: Buffer;
  readonly version: number;
}

/**
 * `state.in-memory`: a process-local map, for tests and throwaway runs. Writes are staged, then committed at once.
 * The keys under each listed prefix are also kept in a sorted array (JavaScript string order, which is byte order
 * for the ASCII keys svcd lists).
 */
export class InMemoryStateStore extends VersionedStateStore implements KeyListingStore {
  readonly #entries = new Map<string, Entry>();
  readonly #listed = new Map<string, string[]>();

  protected read(key: string): Promise<StoredValue | undefined> {
    const e = this.#entries.get(key);
    return Promise.resolve(e && { value: Buffer.from(e.value), version: e.version });
  }

  protected async readMany(keys: readonly string[]): Promise<(StoredValue | undefined)[]> {
    return Promise.all(keys.map((k) => this.read(k)));
  }

  protected applyAtomically(writes: readonly PlannedWrite[]): Promise<void> {
    const staged = new Map<string, Entry | undefined>();
    const current = (key: string) => (staged.has(key) ? staged.get(key) : this.#entries.get(key));
    try {
      applyInOrder(writes, {
        version: (key) => current(key)?.version,
        put: (key, value, version) => staged.set(key, { value: Buffer.from(value), version }),
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
