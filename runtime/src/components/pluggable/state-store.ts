import * as grpc from '@grpc/grpc-js';
import type { ComponentsProtoPackage } from '@svc/proto';
import type { GetRequest as WireGetRequest } from '@svc/proto/gen/svc/proto/components/v1/GetRequest.js';
import type { SetRequest as WireSetRequest } from '@svc/proto/gen/svc/proto/components/v1/SetRequest.js';
import type { DeleteRequest as WireDeleteRequest } from '@svc/proto/gen/svc/proto/components/v1/DeleteRequest.js';
import type { StateOptions as WireStateOptions } from '@svc/proto/gen/svc/proto/components/v1/StateOptions.js';
import type { BulkGetResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/BulkGetResponse.js';
import type { FeaturesResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/FeaturesResponse.js';
import type { GetResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/GetResponse.js';
import type { MultiMaxSizeResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/MultiMaxSizeResponse.js';
import type { StateStoreClient } from '@svc/proto/gen/svc/proto/components/v1/StateStore.js';
import type { TransactionalStateStoreClient } from '@svc/proto/gen/svc/proto/components/v1/TransactionalStateStore.js';
import type { TransactionalStoreMultiMaxSizeClient } from '@svc/proto/gen/svc/proto/components/v1/TransactionalStoreMultiMaxSize.js';
import type { ErrorCode } from '../../errors/codes.js';
import { RuntimeError } from '../../errors/runtime-error.js';
import {
  STATE_FEATURES,
  type BulkGetItem,
  type Consistency,
  type DeleteRequest,
  type GetRequest,
  type GetResponse,
  type SetRequest,
  type StateFeature,
  type StateOptions,
  type TransactionalStateStore,
  type TransactionOperation,
} from '../contracts/state-store.js';
import { isServiceError, type ComponentConnection } from './connection.js';
import { componentStatusErrorOf, etagErrorOf } from './grpc-errors.js';

const CONSISTENCY: Record<Consistency, WireStateOptions['consistency']> = { eventual: 'CONSISTENCY_EVENTUAL', strong: 'CONSISTENCY_STRONG' };

function wireOptions(o: StateOptions | undefined): WireStateOptions {
  return {
    concurrency: o?.concurrency === 'first-write' ? 'CONCURRENCY_FIRST_WRITE' : o?.concurrency === 'last-write' ? 'CONCURRENCY_LAST_WRITE' : 'CONCURRENCY_UNSPECIFIED',
    consistency: o?.consistency ? CONSISTENCY[o.consistency] : 'CONSISTENCY_UNSPECIFIED',
  };
}

const wireGet = (r: GetRequest): WireGetRequest => ({
  key: r.key,
  metadata: { ...r.metadata },
  consistency: r.consistency ? CONSISTENCY[r.consistency] : 'CONSISTENCY_UNSPECIFIED',
});
// The ETag travels only when given; an empty string is still a (non-matching) ETag.
const wireSet = (r: SetRequest): WireSetRequest => ({
  key: r.key,
  value: r.value,
  etag: r.etag === undefined ? null : { value: r.etag },
  metadata: { ...r.metadata },
  options: wireOptions(r.options),
  contentType: r.contentType ?? '',
});
const wireDelete = (r: DeleteRequest): WireDeleteRequest => ({
  key: r.key,
  etag: r.etag === undefined ? null : { value: r.etag },
  metadata: { ...r.metadata },
  options: wireOptions(r.options),
});

type Operation = 'get' | 'set' | 'delete' | 'bulkGet' | 'bulkSet' | 'bulkDelete' | 'transact' | 'multiMaxSize';
const FAILURE_CODE: Record<Operation, ErrorCode> = {
  get: 'ERR_STATE_GET',
  set: 'ERR_STATE_SAVE',
  delete: 'ERR_STATE_DELETE',
  bulkGet: 'ERR_STATE_BULK_GET',
  bulkSet: 'ERR_STATE_SAVE',
  bulkDelete: 'ERR_STATE_DELETE',
  transact: 'ERR_STATE_TRANSACTION',
  multiMaxSize: 'ERR_STATE_TRANSACTION',
};
/** Reads never carry ETag errors (as in the established contract); writes do. */
const WRITES: ReadonlySet<Operation> = new Set(['set', 'delete', 'bulkSet', 'bulkDelete', 'transact']);

/**
 * A state store served by a pluggable component over its Unix socket. Every operation is one RPC (bulk ones
 * included); transactions only when the component's Features include TRANSACTIONAL.
 */
export class PluggableStateStore implements TransactionalStateStore {
  readonly #state: StateStoreClient;
  readonly #transactional: TransactionalStateStoreClient;
  readonly #multiMax: TransactionalStoreMultiMaxSizeClient;
  #features: string[] = [];
  #multiMaxSize: number | undefined;

  constructor(
    private readonly conn: ComponentConnection,
    proto: ComponentsProtoPackage,
    /** The spec's metadata, sent with every Init. */
    private readonly properties: Readonly<Record<string, string>>,
  ) {
    this.#state = conn.client(proto.grpc.StateStore);
    this.#transactional = conn.client(proto.grpc.TransactionalStateStore);
    this.#multiMax = conn.client(proto.grpc.TransactionalStoreMultiMaxSize);
  }

  /** Init with the spec's metadata, then Features (and the transaction size limit when transactional). */
  async handshake(): Promise<void> {
    await this.conn.raw((md, o, cb) => this.#state.Init({ metadata: { properties: { ...this.properties } } }, md, o, cb));
    const res = await this.conn.raw<FeaturesResponse__Output>((md, o, cb) => this.#state.Features({}, md, o, cb));
    this.#features = [...res.features];
    this.#multiMaxSize = undefined;
    if (this.#features.includes('TRANSACTIONAL')) {
      try {
        const max = Number((await this.conn.raw<MultiMaxSizeResponse__Output>((md, o, cb) => this.#multiMax.MultiMaxSize({}, md, o, cb))).maxSize);
        this.#multiMaxSize = max > 0 ? max : undefined;
      } catch (err) {
        // UNIMPLEMENTED (the usual case) means no limit.
        if (!isServiceError(err)) throw err;
      }
    }
  }

  ping(deadline: Date): Promise<unknown> {
    return this.conn.raw((md, o, cb) => this.#state.Ping({}, md, o, cb), deadline);
  }

  health(): { ok: boolean; reason?: string } {
    return this.conn.health();
  }

  features(): readonly StateFeature[] {
    return this.#features.filter((f): f is StateFeature => (STATE_FEATURES as readonly string[]).includes(f));
  }

  multiMaxSize(): number | undefined {
    return this.#multiMaxSize;
  }

  async get(req: GetRequest): Promise<GetResponse | undefined> {
    const res = await this.#call('get', req.key, () => this.conn.call<GetResponse__Output>((md, o, cb) => this.#state.Get(wireGet(req), md, o, cb)));
    if (res.data.length === 0) return undefined;
    return {
      data: res.data,
      ...(res.etag ? { etag: res.etag.value } : {}),
      ...(Object.keys(res.metadata).length > 0 ? { metadata: res.metadata } : {}),
      ...(res.contentType ? { contentType: res.contentType } : {}),
    };
  }

  async set(req: SetRequest): Promise<void> {
    await this.#call('set', req.key, () => this.conn.call((md, o, cb) => this.#state.Set(wireSet(req), md, o, cb)));
  }

  async delete(req: DeleteRequest): Promise<void> {
    await this.#call('delete', req.key, () => this.conn.call((md, o, cb) => this.#state.Delete(wireDelete(req), md, o, cb)));
  }

  async bulkGet(reqs: readonly GetRequest[]): Promise<BulkGetItem[]> {
    if (reqs.length === 0) return [];
    const res = await this.#call('bulkGet', reqs[0]!.key, () => this.conn.call<BulkGetResponse__Output>((md, o, cb) => this.#state.BulkGet({ items: reqs.map(wireGet), options: { parallelism: '0' } }, md, o, cb)));
    return res.items.map((item) => ({
      key: item.key,
      ...(item.data.length > 0 ? { data: item.data } : {}),
      ...(item.etag ? { etag: item.etag.value } : {}),
      ...(Object.keys(item.metadata).length > 0 ? { metadata: item.metadata } : {}),
      ...(item.error ? { error: item.error } : {}),
    }));
  }

  async bulkSet(reqs: readonly SetRequest[]): Promise<void> {
    if (reqs.length === 0) return;
    await this.#call('bulkSet', reqs[0]!.key, () => this.conn.call((md, o, cb) => this.#state.BulkSet({ items: reqs.map(wireSet), options: { parallelism: '0' } }, md, o, cb)));
  }

  async bulkDelete(reqs: readonly DeleteRequest[]): Promise<void> {
    if (reqs.length === 0) return;
    await this.#call('bulkDelete', reqs[0]!.key, () => this.conn.call((md, o, cb) => this.#state.BulkDelete({ items: reqs.map(wireDelete), options: { parallelism: '0' } }, md, o, cb)));
  }

  async transact(ops: readonly TransactionOperation[], metadata?: Readonly<Record<string, string>>): Promise<void> {
    if (!this.#features.includes('TRANSACTIONAL')) {
      throw new RuntimeError('ERR_STATE_STORE_NOT_SUPPORTED', `state store ${this.conn.instance} does not support transactions (the pluggable component reports no TRANSACTIONAL feature)`);
    }
    const operations = ops.map((op) => (op.operation === 'upsert' ? { set: wireSet(op.request) } : { delete: wireDelete(op.request) }));
    await this.#call('transact', ops[0]?.request.key ?? '', () =>
      this.conn.call((md, o, cb) => this.#transactional.Transact({ operations, metadata: { ...metadata } }, md, o, cb)),
    );
  }

  close(): Promise<void> {
    return this.conn.close();
  }

  /** Maps the component's gRPC errors to the state API's errors (ETag, own HTTP status, else a 500 naming it). */
  async #call<T>(op: Operation, key: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (!isServiceError(err)) throw err;
      const mapped = (WRITES.has(op) ? etagErrorOf(err, key) : undefined) ?? componentStatusErrorOf(err, `pluggable state store ${this.conn.instance}`);
      if (mapped) throw mapped;
      throw new RuntimeError(FAILURE_CODE[op], `pluggable state store ${this.conn.instance} failed to ${op} (key ${key}): ${statusName(err)}: ${err.details}`, { cause: err });
    }
  }
}

function statusName(err: grpc.ServiceError): string {
  return grpc.status[err.code] ?? String(err.code);
}
