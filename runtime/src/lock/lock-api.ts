/** The distributed lock building block, free of any transport: the HTTP routes and the gRPC API call this. */
import type { ComponentManager } from '../components/manager.js';
import { metadataValue } from '../components/spec.js';
import { isLockStore, type LockStore, type UnlockStatus } from '../components/contracts/lock-store.js';
import { componentFailure, malformedRequest } from '../errors/catalogue.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Resiliency } from '../resiliency/resiliency.js';
import { lockKey } from './lock-key.js';

export interface TryLockRequest {
  readonly resourceId: string;
  readonly lockOwner: string;
  readonly expiryInSeconds: number;
}

export interface UnlockRequest {
  readonly resourceId: string;
  readonly lockOwner: string;
}

export class LockApi {
  constructor(
    private readonly components: ComponentManager,
    private readonly appId: string,
    /**
     * The Resiliency policies in force: each store's outbound timeout and circuit breaker. Never a retry: a try-lock
     * whose answer was lost took the lock, and trying again would report it taken by someone else.
     */
    private readonly resiliency?: () => Resiliency,
  ) {}

  async tryLock(storeName: string, req: TryLockRequest): Promise<{ success: boolean }> {
    // Checked before the store, as Dapr does: a bad expiry is the request's fault whatever the store.
    if (!Number.isInteger(req.expiryInSeconds) || req.expiryInSeconds <= 0) throw malformedRequest(`ExpiryInSeconds is not positive in lock store ${storeName}`);
    const { store, key } = this.#resolve(storeName, req);
    try {
      return { success: await this.#guarded(storeName, () => store.tryLock(key, req.lockOwner, req.expiryInSeconds)) };
    } catch (err) {
      throw componentFailure('ERR_TRY_LOCK', 'failed to try acquiring lock', err);
    }
  }

  async unlock(storeName: string, req: UnlockRequest): Promise<{ status: UnlockStatus }> {
    const { store, key } = this.#resolve(storeName, req);
    try {
      return { status: await this.#guarded(storeName, () => store.unlock(key, req.lockOwner)) };
    } catch (err) {
      throw componentFailure('ERR_UNLOCK', 'failed to release lock', err);
    }
  }

  #guarded<T>(storeName: string, call: () => Promise<T>): Promise<T> {
    const policy = this.resiliency?.().forComponent(storeName, 'outbound');
    return policy ? policy.run(call, { retryable: () => false }) : call();
  }

  /** Dapr's order of checks: any lock store at all, the request's fields, then the named store. */
  #resolve(storeName: string, req: UnlockRequest): { store: LockStore; key: string } {
    const stores = this.components.list('lock');
    if (stores.length === 0) throw new RuntimeError('ERR_LOCK_STORE_NOT_CONFIGURED', 'lock store is not configured');
    if (req.resourceId === '') throw malformedRequest(`ResourceId is empty in lock store ${storeName}`);
    if (req.lockOwner === '') throw malformedRequest(`LockOwner is empty in lock store ${storeName}`);
    const found = stores.find((c) => c.spec.name === storeName);
    if (!found || !isLockStore(found.instance)) throw new RuntimeError('ERR_LOCK_STORE_NOT_FOUND', `lock store ${storeName} not found`);
    return { store: found.instance, key: lockKey(req.resourceId, { appId: this.appId, storeName, keyPrefix: metadataValue(found.spec, 'keyPrefix') }) };
  }
}
