/**
 * The state API without a transport: store lookup, key validation and prefixing, request validation before any
 * write, and mapping store failures to coded errors. The HTTP routes and the gRPC runtime API only decode and encode.
 */
import { metadataValue, type ComponentSpec } from '../components/spec.js';
import { RuntimeError, type RuntimeErrorOptions } from '../errors/runtime-error.js';
import type { ErrorCode } from '../errors/codes.js';
import { StateKeyMapper, stateKeyPrefix } from './key-prefix.js';
import { resilientStore } from './resilient-store.js';
import { tracedStore } from './traced-store.js';
import { tracingEnabled } from '../tracing/enabled.js';
import type { Resiliency } from '../resiliency/resiliency.js';
import {
  ComponentStatusError,
  isTransactional,
  StateEtagError,
  type BulkGetItem,
  type Concurrency,
  type Consistency,
  type GetResponse,
  type SetRequest,
  type StateMetadata,
  type StateOptions,
  type StateStore,
  type TransactionOperation,
} from '../components/contracts/state-store.js';

/** Where the API finds state stores (the component manager). */
export interface StateStoreDirectory {
  stateStore(name: string): { spec: ComponentSpec; store: StateStore } | undefined;
  list(category: 'state'): readonly unknown[];
}

/** Options as the client spelled them; validated here so every transport rejects the same values. */
export interface StateOptionsInput {
  readonly concurrency?: string;
  readonly consistency?: string;
}

export interface SaveStateItem {
  readonly key: string;
  /** Required; undefined only so the API can reject its absence with the same error on every transport. */
  readonly value: Buffer | undefined;
  readonly etag?: string;
  readonly metadata?: StateMetadata;
  readonly options?: StateOptionsInput;
}

export interface DeleteStateInput {
  readonly key: string;
  readonly etag?: string;
  readonly metadata?: StateMetadata;
  readonly options?: StateOptionsInput;
}

export interface TransactionOperationInput {
  readonly operation: string;
  readonly request: SaveStateItem;
}

export interface StateApiOptions {
  readonly appId: string;
  /** The `NAMESPACE` of the process, for the `namespace` key prefix strategy. */
  readonly namespace: string | undefined;
  /** The Resiliency policies in force: each store's outbound policy applies to its calls. */
  readonly resiliency?: () => Resiliency;
  readonly stores: StateStoreDirectory;
}

const CONCURRENCY: readonly Concurrency[] = ['first-write', 'last-write'];
const CONSISTENCY: readonly Consistency[] = ['eventual', 'strong'];

function oneOf<T extends string>(name: string, allowed: readonly T[], value: string | undefined): T | undefined {
  if (value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new RuntimeError('ERR_MALFORMED_REQUEST', `${name} must be one of ${allowed.join(', ')}, got '${value}'`);
  }
  return value as T;
}

export function parseStateOptions(input: StateOptionsInput | undefined): StateOptions | undefined {
  if (!input) return undefined;
  const concurrency = oneOf('concurrency', CONCURRENCY, input.concurrency);
  const consistency = oneOf('consistency', CONSISTENCY, input.consistency);
  return concurrency || consistency ? { concurrency, consistency } : undefined;
}

/**
 * Maps a store error to the operation's coded error: ETag errors keep their meaning (409/400) on every operation,
 * and name the client's key rather than the prefixed store key.
 */
function stateFailure(code: ErrorCode, context: string, err: unknown, keys: StateKeyMapper): RuntimeError {
  if (err instanceof RuntimeError) return err;
  const options: RuntimeErrorOptions = { cause: err };
  if (err instanceof StateEtagError) {
    const message = err.message.split(err.key).join(keys.fromStoreKey(err.key));
    return new RuntimeError(err.kind === 'mismatch' ? 'ERR_STATE_ETAG_MISMATCH' : 'ERR_STATE_ETAG_INVALID', `${context}: ${message}`, options);
  }
  if (err instanceof ComponentStatusError) return new RuntimeError(code, `${context}: ${err.message}`, { ...options, httpStatus: err.httpStatus });
  return new RuntimeError(code, `${context}: ${(err as Error).message ?? String(err)}`, options);
}

export class StateApi {
  constructor(private readonly opts: StateApiOptions) {}

  #resolve(storeName: string): { store: StateStore; keys: StateKeyMapper } {
    if (this.opts.stores.list('state').length === 0) {
      throw new RuntimeError('ERR_STATE_STORE_NOT_CONFIGURED', `state store is not configured for app ${this.opts.appId || '(no app id)'}`);
    }
    const found = this.opts.stores.stateStore(storeName);
    if (!found) throw new RuntimeError('ERR_STATE_STORE_NOT_FOUND', `state store ${storeName} is not found`);
    const prefix = stateKeyPrefix(metadataValue(found.spec, 'keyPrefix'), { appId: this.opts.appId, storeName, namespace: this.opts.namespace });
    const reached = tracingEnabled() ? tracedStore(found.store, found.spec) : found.store;
    // Inside the policy: each retried attempt is a span of its own.
    const store = this.opts.resiliency ? resilientStore(reached, this.opts.resiliency().forComponent(storeName, 'outbound')) : reached;
    return { store, keys: new StateKeyMapper(prefix) };
  }

  #setRequest(store: StateStore, storeName: string, keys: StateKeyMapper, item: SaveStateItem, extraMetadata: StateMetadata): SetRequest {
    const key = keys.toStoreKey(item.key);
    if (item.value === undefined) throw new RuntimeError('ERR_MALFORMED_REQUEST', `"value" is a required field (key ${item.key})`);
    const metadata = { ...item.metadata, ...extraMetadata };
    if (metadata.ttlInSeconds !== undefined) {
      // Refused rather than ignored: a value the client asked to expire must not silently live for ever.
      if (!store.features().includes('TTL')) {
        throw new RuntimeError('ERR_STATE_TTL_NOT_SUPPORTED', `state store ${storeName} does not expire values: ttlInSeconds (key ${item.key}) is not supported`);
      }
      if (!/^(-1|[1-9][0-9]{0,9})$/.test(metadata.ttlInSeconds)) {
        throw new RuntimeError('ERR_MALFORMED_REQUEST', `ttlInSeconds '${metadata.ttlInSeconds}' (key ${item.key}) must be a positive whole number of seconds, or -1 for no expiry`);
      }
    }
    return { key, value: item.value, etag: item.etag, metadata, options: parseStateOptions(item.options) };
  }

  /** Undefined when the key is missing (or its value is empty, which the wire cannot tell apart). */
  async get(storeName: string, key: string, opts: { metadata?: StateMetadata; consistency?: string } = {}): Promise<GetResponse | undefined> {
    const { store, keys } = this.#resolve(storeName);
    const req = { key: keys.toStoreKey(key), metadata: opts.metadata, consistency: oneOf('consistency', CONSISTENCY, opts.consistency) };
    try {
      const res = await store.get(req);
      return res && res.data.length > 0 ? res : undefined;
    } catch (err) {
      throw stateFailure('ERR_STATE_GET', `fail to get ${key} from state store ${storeName}`, err, keys);
    }
  }

  /** One item is a `set`, more a `bulkSet` (atomic); nothing is written unless every item is valid. */
  async save(storeName: string, items: readonly SaveStateItem[], urlMetadata: StateMetadata = {}): Promise<void> {
    const { store, keys } = this.#resolve(storeName);
    const reqs = items.map((item) => this.#setRequest(store, storeName, keys, item, urlMetadata));
    if (reqs.length === 0) return;
    try {
      if (reqs.length === 1) await store.set(reqs[0]!);
      else await store.bulkSet(reqs);
    } catch (err) {
      throw stateFailure('ERR_STATE_SAVE', `failed saving state in state store ${storeName}`, err, keys);
    }
  }

  async delete(storeName: string, input: DeleteStateInput): Promise<void> {
    const { store, keys } = this.#resolve(storeName);
    const req = { key: keys.toStoreKey(input.key), etag: input.etag, metadata: input.metadata, options: parseStateOptions(input.options) };
    try {
      await store.delete(req);
    } catch (err) {
      throw stateFailure('ERR_STATE_DELETE', `failed deleting state with key ${input.key}`, err, keys);
    }
  }

  /** Every key is validated before any is deleted; the store deletes them in one bulk call. */
  async bulkDelete(storeName: string, inputs: readonly DeleteStateInput[]): Promise<void> {
    const { store, keys } = this.#resolve(storeName);
    const reqs = inputs.map((input) => ({ key: keys.toStoreKey(input.key), etag: input.etag, metadata: input.metadata, options: parseStateOptions(input.options) }));
    if (reqs.length === 0) return;
    try {
      await store.bulkDelete(reqs);
    } catch (err) {
      throw stateFailure('ERR_STATE_DELETE', `failed deleting state in state store ${storeName}`, err, keys);
    }
  }

  /** Items carry the client's keys (unprefixed), in the order the store answered (request order for built-ins). */
  async bulkGet(storeName: string, requested: readonly string[], metadata: StateMetadata = {}): Promise<BulkGetItem[]> {
    const { store, keys } = this.#resolve(storeName);
    const reqs = requested.map((key) => ({ key: keys.toStoreKey(key), metadata }));
    if (reqs.length === 0) return [];
    let items: BulkGetItem[];
    try {
      items = await store.bulkGet(reqs);
    } catch (err) {
      throw stateFailure('ERR_STATE_BULK_GET', `failed getting bulk state from state store ${storeName}`, err, keys);
    }
    return items.slice(0, reqs.length).map((item) => ({ ...item, key: keys.fromStoreKey(item.key) }));
  }

  /** Every operation is validated before the store sees any of them; the store applies all or none. */
  async transact(storeName: string, ops: readonly TransactionOperationInput[], metadata: StateMetadata = {}): Promise<void> {
    const { store, keys } = this.#resolve(storeName);
    if (!isTransactional(store)) throw new RuntimeError('ERR_STATE_STORE_NOT_SUPPORTED', `state store ${storeName} doesn't support transactions`);
    const max = store.multiMaxSize?.();
    if (max !== undefined && max > 0 && ops.length > max) {
      throw new RuntimeError('ERR_STATE_STORE_TOO_MANY_TRANSACTIONS', `the transaction has ${ops.length} operations, state store ${storeName} allows at most ${max}`);
    }
    const planned = ops.map((op): TransactionOperation => {
      switch (op.operation) {
        case 'upsert':
          return { operation: 'upsert', request: this.#setRequest(store, storeName, keys, op.request, {}) };
        case 'delete':
          return {
            operation: 'delete',
            request: { key: keys.toStoreKey(op.request.key), etag: op.request.etag, metadata: op.request.metadata, options: parseStateOptions(op.request.options) },
          };
        default:
          throw new RuntimeError('ERR_NOT_SUPPORTED_STATE_OPERATION', `operation type ${op.operation} not supported`);
      }
    });
    if (planned.length === 0) return;
    try {
      await store.transact(planned, metadata);
    } catch (err) {
      throw stateFailure('ERR_STATE_TRANSACTION', 'error while executing state transaction', err, keys);
    }
  }
}
