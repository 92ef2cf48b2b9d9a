import { isTransactional, StateEtagError, type StateStore, type TransactionalStateStore } from '../components/contracts/state-store.js';
import { isRuntimeError } from '../errors/runtime-error.js';
import type { TargetPolicy } from '../resiliency/policy.js';

/** A failure the store itself reported about the request (an ETag, a bad key): trying again cannot change it. */
const requestFault = (err: unknown): boolean => err instanceof StateEtagError || (isRuntimeError(err) && err.httpStatus < 500);

/**
 * A state store seen through its component's outbound Resiliency policy (docs/resiliency.md): every call gets the
 * timeout and the circuit breaker; only reads are retried — a write that timed out may have been applied, and
 * writing it again would answer an ETag conflict for a save that succeeded.
 */
export function resilientStore(store: StateStore, policy: TargetPolicy): StateStore {
  if (policy.isEmpty) return store;
  const read = <T>(op: () => Promise<T>) => policy.run(op, { retryable: (err) => !requestFault(err) });
  const write = <T>(op: () => Promise<T>) => policy.run(op, { retryable: () => false });
  const guarded: StateStore = {
    features: () => store.features(),
    get: (req) => read(() => store.get(req)),
    bulkGet: (reqs) => read(() => store.bulkGet(reqs)),
    set: (req) => write(() => store.set(req)),
    delete: (req) => write(() => store.delete(req)),
    bulkSet: (reqs) => write(() => store.bulkSet(reqs)),
    bulkDelete: (reqs) => write(() => store.bulkDelete(reqs)),
    close: () => store.close(),
  };
  if (!isTransactional(store)) return guarded;
  const transactional: TransactionalStateStore = {
    ...guarded,
    transact: (ops, metadata) => write(() => store.transact(ops, metadata)),
    ...(store.multiMaxSize ? { multiMaxSize: () => store.multiMaxSize?.() } : {}),
  };
  return transactional;
}
