/**
 * The indexes of actor types (`ActorTypeOptions.indexes`): keys an actor's turns write beside its state, listed in
 * byte order through the store's key listing. Kept only on stores that can list keys; a named index must be
 * declared with its type, because stores that keep listings (Redis) maintain declared prefixes only.
 */
import { canListKeys, type KeyListingStore, type StateStore, type TransactionOperation } from '../components/contracts/state-store.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { assertValidActorType, assertValidIndexName, type ActorKeys } from './keys.js';
import type { IndexEntry, IndexPage } from './types.js';

export class ActorIndexes {
  readonly #listing: KeyListingStore | undefined;
  readonly #declared = new Map<string, ReadonlySet<string>>();

  constructor(
    store: StateStore,
    private readonly keys: ActorKeys,
    /** The store's component name, for errors. */
    private readonly storeName: string,
  ) {
    this.#listing = canListKeys(store) ? store : undefined;
  }

  /** The named indexes of a type being registered (the unnamed one always exists). */
  declare(type: string, names: readonly string[]): void {
    for (const name of names) assertValidIndexName(name);
    this.#declared.set(type, new Set(names));
    for (const name of ['', ...names]) this.#listing?.declareListedPrefix(this.keys.indexPrefix(type, name));
  }

  /** The store writes of a turn's index changes (none on a store that cannot list). */
  writes(type: string, changes: ReadonlyMap<string, ReadonlyMap<string, Buffer | null>>): TransactionOperation[] {
    if (!this.#listing) return [];
    const ops: TransactionOperation[] = [];
    for (const [index, entries] of changes) {
      this.#check(type, index);
      for (const [key, value] of entries) {
        const storeKey = this.keys.index(type, key, index);
        ops.push(value === null ? { operation: 'delete', request: { key: storeKey } } : { operation: 'upsert', request: { key: storeKey, value } });
      }
    }
    return ops;
  }

  async list(type: string, page: IndexPage): Promise<IndexEntry[]> {
    assertValidActorType(type);
    if (!this.#listing) throw new RuntimeError('ERR_STATE_STORE_NOT_SUPPORTED', `${this.storeName} cannot list keys in order, which listing needs (SQLite, PostgreSQL, Redis and in-memory stores can)`);
    const index = page.index ?? '';
    this.#check(type, index);
    const prefix = this.keys.indexPrefix(type, index);
    const listed = await this.#listing.listKeys(prefix, { limit: page.limit, ...(page.after !== undefined ? { after: prefix + page.after } : {}) });
    return listed.map((e) => ({ key: e.key.slice(prefix.length), value: e.value }));
  }

  #check(type: string, index: string): void {
    if (index !== '' && !this.#declared.get(type)?.has(index)) {
      throw new RuntimeError('ERR_MALFORMED_REQUEST', `actor type ${type} has no index named '${index}' (declare it in the type's options)`);
    }
  }
}
