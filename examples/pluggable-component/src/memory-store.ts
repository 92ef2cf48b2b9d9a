/**
 * An in-memory key/value store with ETags: every write gets a new version number, which is the key's ETag.
 * Writes come as batches that apply entirely or not at all (a single Set is a batch of one).
 */

export class EtagConflict extends Error {
  constructor(
    readonly kind: 'mismatch' | 'invalid',
    readonly key: string,
  ) {
    super(kind === 'mismatch' ? `etag does not match the stored version of key ${key}` : `etag of key ${key} is not a version number`);
  }
}

export interface StoredItem {
  readonly value: Buffer;
  readonly etag: string;
  readonly contentType: string;
}

export type WriteOp =
  | { readonly kind: 'set'; readonly key: string; readonly value: Buffer; readonly contentType: string; readonly etag?: string; readonly firstWrite: boolean }
  | { readonly kind: 'delete'; readonly key: string; readonly etag?: string };

interface Entry {
  value: Buffer;
  version: number;
  contentType: string;
}

const VERSION = /^[1-9][0-9]*$/;

export class MemoryStore {
  readonly #entries = new Map<string, Entry>();
  #lastVersion = 0;

  get(key: string): StoredItem | undefined {
    const e = this.#entries.get(key);
    return e && { value: e.value, etag: String(e.version), contentType: e.contentType };
  }

  /** Checks every operation against the state the earlier ones leave, then applies all of them, or none. */
  apply(ops: readonly WriteOp[]): void {
    const pending = new Map<string, Entry | undefined>();
    const current = (key: string) => (pending.has(key) ? pending.get(key) : this.#entries.get(key));
    for (const op of ops) {
      const existing = current(op.key);
      if (op.etag !== undefined) {
        if (!VERSION.test(op.etag)) throw new EtagConflict('invalid', op.key);
        if (!existing || String(existing.version) !== op.etag) throw new EtagConflict('mismatch', op.key);
      } else if (op.kind === 'set' && op.firstWrite && existing) {
        throw new EtagConflict('mismatch', op.key);
      }
      pending.set(op.key, op.kind === 'set' ? { value: op.value, contentType: op.contentType, version: 0 } : undefined);
    }
    for (const [key, entry] of pending) {
      if (entry) this.#entries.set(key, { ...entry, version: ++this.#lastVersion });
      else this.#entries.delete(key);
    }
  }
}
