/**
 * A state store whose every call is a CLIENT span, as OpenTelemetry's database conventions name it:
 * `{operation} {store}` with `db.system.name` (the component type: redis, postgresql, sqlite, in-memory, or a
 * pluggable component's socket name), `db.operation.name` and `db.collection.name` (the store's component name).
 * Used only when svcd traces.
 */
import { isTransactional, type StateStore, type TransactionalStateStore } from '../components/contracts/state-store.js';
import { inSpan, SpanKind } from '../tracing/spans.js';

export interface TracedStoreSpec {
  readonly name: string;
  /** `state.redis` */
  readonly type: string;
}

export function tracedStore(store: StateStore, spec: TracedStoreSpec): StateStore {
  const system = spec.type.slice(spec.type.indexOf('.') + 1);
  const traced = <T>(operation: string, call: () => Promise<T>, batch?: number): Promise<T> =>
    inSpan(
      {
        name: `${operation} ${spec.name}`,
        kind: SpanKind.CLIENT,
        attributes: { 'db.system.name': system, 'db.operation.name': operation, 'db.collection.name': spec.name, ...(batch === undefined ? {} : { 'db.operation.batch.size': batch }) },
      },
      call,
    );
  const wrapped: StateStore = {
    features: () => store.features(),
    get: (req) => traced('GET', () => store.get(req)),
    bulkGet: (reqs) => traced('BULK_GET', () => store.bulkGet(reqs), reqs.length),
    set: (req) => traced('SET', () => store.set(req)),
    delete: (req) => traced('DELETE', () => store.delete(req)),
    bulkSet: (reqs) => traced('BULK_SET', () => store.bulkSet(reqs), reqs.length),
    bulkDelete: (reqs) => traced('BULK_DELETE', () => store.bulkDelete(reqs), reqs.length),
    close: () => store.close(),
  };
  if (!isTransactional(store)) return wrapped;
  const transactional: TransactionalStateStore = {
    ...wrapped,
    transact: (ops, metadata) => traced('TRANSACTION', () => store.transact(ops, metadata), ops.length),
    ...(store.multiMaxSize ? { multiMaxSize: () => store.multiMaxSize?.() } : {}),
  };
  return transactional;
}
