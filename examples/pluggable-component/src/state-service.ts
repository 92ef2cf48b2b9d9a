import * as grpc from '@grpc/grpc-js';
import type { DeleteRequest__Output } from '@svc/proto/gen/svc/proto/components/v1/DeleteRequest.js';
import type { GetRequest__Output } from '@svc/proto/gen/svc/proto/components/v1/GetRequest.js';
import type { SetRequest__Output } from '@svc/proto/gen/svc/proto/components/v1/SetRequest.js';
import type { StateStoreHandlers } from '@svc/proto/gen/svc/proto/components/v1/StateStore.js';
import type { TransactionalStateStoreHandlers } from '@svc/proto/gen/svc/proto/components/v1/TransactionalStateStore.js';
import { etagError, httpError, plainError } from './grpc-errors.js';
import { Instances, unary } from './instances.js';
import { EtagConflict, MemoryStore, type WriteOp } from './memory-store.js';


/** One state store instance: its data and the limits its Component metadata set. */
interface StateInstance {
  readonly store: MemoryStore;
  /** `maxValueBytes`: larger values are refused with HTTP 413 (an error carrying its own HTTP status). */
  readonly maxValueBytes: number;
  /** `readOnlyKeyPrefix`: writes to these keys fail with a plain gRPC error (HTTP 500 through the runtime). */
  readonly readOnlyKeyPrefix: string;
}

function newInstance(properties: Record<string, string>): StateInstance {
  const max = Number(properties.maxValueBytes ?? '0');
  return { store: new MemoryStore(), maxValueBytes: Number.isInteger(max) && max > 0 ? max : Infinity, readOnlyKeyPrefix: properties.readOnlyKeyPrefix ?? '' };
}

// An absent ETag and an empty one both mean "no ETag".
const etagOf = (e: { value: string } | null) => (e && e.value !== '' ? e.value : undefined);

function setOp(inst: StateInstance, r: SetRequest__Output): WriteOp {
  if (r.value.length > inst.maxValueBytes) {
    throw httpError(grpc.status.RESOURCE_EXHAUSTED, 413, 'ERR_VALUE_TOO_LARGE', `value of key ${r.key} has ${r.value.length} bytes; this store accepts at most ${inst.maxValueBytes}`);
  }
  return { kind: 'set', key: r.key, value: r.value, contentType: r.contentType, etag: etagOf(r.etag), firstWrite: r.options?.concurrency === 'CONCURRENCY_FIRST_WRITE' };
}

const deleteOp = (r: DeleteRequest__Output): WriteOp => ({ kind: 'delete', key: r.key, etag: etagOf(r.etag) });

function write(inst: StateInstance, ops: readonly WriteOp[]): void {
  const locked = inst.readOnlyKeyPrefix && ops.find((op) => op.key.startsWith(inst.readOnlyKeyPrefix));
  if (locked) throw plainError(grpc.status.PERMISSION_DENIED, `key ${locked.key} is read-only`);
  try {
    inst.store.apply(ops);
  } catch (err) {
    if (err instanceof EtagConflict) throw etagError(err.kind, err.message);
    throw err;
  }
}

function read(inst: StateInstance, r: GetRequest__Output) {
  const item = inst.store.get(r.key);
  return item ? { data: item.value, etag: { value: item.etag }, contentType: item.contentType } : {};
}

/** The StateStore service, and TransactionalStateStore unless `transactions` is false. */
export function stateServices(opts: { transactions: boolean }): { state: StateStoreHandlers; transactional?: TransactionalStateStoreHandlers } {
  const instances = new Instances<StateInstance>('state store');
  const features = opts.transactions ? ['ETAG', 'TRANSACTIONAL'] : ['ETAG'];
  const state: StateStoreHandlers = {
    Init: unary((call) => {
      instances.init(call, () => newInstance(call.request.metadata?.properties ?? {}));
      return {};
    }),
    Features: unary(() => ({ features })),
    Ping: unary(() => ({})),
    Get: unary((call) => read(instances.of(call), call.request)),
    Set: unary((call) => {
      const inst = instances.of(call);
      write(inst, [setOp(inst, call.request)]);
      return {};
    }),
    Delete: unary((call) => {
      write(instances.of(call), [deleteOp(call.request)]);
      return {};
    }),
    BulkGet: unary((call) => {
      const inst = instances.of(call);
      return { items: call.request.items.map((r) => ({ key: r.key, ...read(inst, r) })) };
    }),
    BulkSet: unary((call) => {
      const inst = instances.of(call);
      write(inst, call.request.items.map((r) => setOp(inst, r)));
      return {};
    }),
    BulkDelete: unary((call) => {
      write(instances.of(call), call.request.items.map(deleteOp));
      return {};
    }),
  };
  const transactional: TransactionalStateStoreHandlers = {
    Transact: unary((call) => {
      const inst = instances.of(call);
      const ops = call.request.operations.map((op) => {
        if (op.set) return setOp(inst, op.set);
        if (op.delete) return deleteOp(op.delete);
        throw plainError(grpc.status.INVALID_ARGUMENT, 'a transaction operation is neither set nor delete');
      });
      write(inst, ops);
      return {};
    }),
  };
  return opts.transactions ? { state, transactional } : { state };
}
