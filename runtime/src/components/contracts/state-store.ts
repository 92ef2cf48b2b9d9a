/**
 * The state store boundary. Built-in stores, pluggable (gRPC) stores and the actor runtime all meet here.
 * Values are raw bytes: the store keeps exactly what the client sent.
 */

export const STATE_FEATURES = ['ETAG', 'TRANSACTIONAL', 'ACTOR', 'QUERY_API', 'TTL'] as const;
export type StateFeature = (typeof STATE_FEATURES)[number];

export type Concurrency = 'first-write' | 'last-write';
export type Consistency = 'eventual' | 'strong';

export interface StateOptions {
  /**
   * `first-write`: with an ETag the write must match it; without one the key must not exist yet.
   * `last-write` (default): with an ETag the write must match it; without one it always wins.
   */
  concurrency?: Concurrency;
  consistency?: Consistency;
}

export type StateMetadata = Readonly<Record<string, string>>;

export interface GetRequest {
  key: string;
  metadata?: StateMetadata;
  consistency?: Consistency;
}

export interface GetResponse {
  data: Buffer;
  etag?: string;
  metadata?: StateMetadata;
  contentType?: string;
}

export interface SetRequest {
  key: string;
  value: Buffer;
  etag?: string;
  metadata?: StateMetadata;
  options?: StateOptions;
  contentType?: string;
}

export interface DeleteRequest {
  key: string;
  etag?: string;
  metadata?: StateMetadata;
  options?: StateOptions;
}

export interface BulkGetItem {
  key: string;
  data?: Buffer;
  etag?: string;
  metadata?: StateMetadata;
  error?: string;
}

export type TransactionOperation =
  | { operation: 'upsert'; request: SetRequest }
  | { operation: 'delete'; request: DeleteRequest };

export interface StateStore {
  /** Capabilities; `TRANSACTIONAL` promises `transact`. */
  features(): readonly StateFeature[];
  /** `undefined` when the key does not exist. */
  get(req: GetRequest): Promise<GetResponse | undefined>;
  set(req: SetRequest): Promise<void>;
  delete(req: DeleteRequest): Promise<void>;
  bulkGet(reqs: readonly GetRequest[]): Promise<BulkGetItem[]>;
  /** All or nothing where the store can do it (every built-in store does). */
  bulkSet(reqs: readonly SetRequest[]): Promise<void>;
  bulkDelete(reqs: readonly DeleteRequest[]): Promise<void>;
  close(): Promise<void>;
}

export interface TransactionalStateStore extends StateStore {
  /** Applies every operation atomically, or none of them. */
  transact(ops: readonly TransactionOperation[], metadata?: StateMetadata): Promise<void>;
  /** Largest number of operations in one transaction; undefined means no limit. */
  multiMaxSize?(): number | undefined;
}

export function isTransactional(store: StateStore): store is TransactionalStateStore {
  return store.features().includes('TRANSACTIONAL') && typeof (store as Partial<TransactionalStateStore>).transact === 'function';
}

/** One key a listing returned, with its value. */
export interface ListedKey {
  readonly key: string;
  readonly value: Buffer;
}

/** A page of a listing: keys strictly after `after` (a full key), at most `limit` of them. */
export interface KeyPage {
  readonly after?: string;
  readonly limit: number;
}

/**
 * Optional capability: the keys under a prefix, ascending in byte order, a page at a time, read from an ordered
 * index (never a scan of every key). Prefixes end with an ASCII character (listing needs the prefix's upper bound).
 */
export interface KeyListingStore {
  /**
   * Declares that the keys under `prefix` will be listed. Stores that keep a separate ordered index of those keys
   * (Redis, in-memory) maintain it from now on, in the same atomic operation as every write under the prefix, so
   * declare a prefix before the first write under it. Idempotent.
   */
  declareListedPrefix(prefix: string): void;
  /** Keys under a declared prefix after `page.after`, ascending; each with its value at one moment of the read. */
  listKeys(prefix: string, page: KeyPage): Promise<ListedKey[]>;
}

export function canListKeys(store: StateStore): store is StateStore & KeyListingStore {
  const s = store as Partial<KeyListingStore>;
  return typeof s.listKeys === 'function' && typeof s.declareListedPrefix === 'function';
}

/** The first string above every key that starts with `prefix` (ranges `key >= prefix AND key < bound`). */
export function prefixUpperBound(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  if (!(last >= 0 && last < 0x7f)) throw new Error(`listed key prefix '${prefix}' must end with an ASCII character`);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

/** ETag failures are not store failures: the API maps them to 409 (mismatch) and 400 (invalid). */
export class StateEtagError extends Error {
  override readonly name = 'StateEtagError';
  constructor(
    readonly kind: 'mismatch' | 'invalid',
    readonly key: string,
    message?: string,
  ) {
    super(message ?? (kind === 'mismatch' ? `possible etag mismatch for key ${key}` : `invalid etag value for key ${key}`));
  }
}

/** An error a component raised with its own HTTP status (pluggable components signal these through gRPC details). */
export class ComponentStatusError extends Error {
  override readonly name = 'ComponentStatusError';
  constructor(
    message: string,
    readonly httpStatus: number,
    readonly tag?: string,
  ) {
    super(message);
  }
}
