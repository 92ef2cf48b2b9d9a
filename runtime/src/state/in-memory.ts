import { ensureError } from '../errors/runtime-error.js';
import { applyInOrder, type PlannedWrite } from './write-plan.js';
import { VersionedStateStore, type StoredValue } from './versioned-store.js';

interface Entry {
  readonly value: Buffer;
  readonly version: number;
}

/** `state.in-memory`: a process-local map, for tests and throwaway runs. Writes are staged, then committed at once. */
export class InMemoryStateStore extends VersionedStateStore {
  readonly #entries = new Map<string, Entry>();

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
    }
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#entries.clear();
    return Promise.resolve();
  }
}
