/** TryLockAlpha1 and UnlockAlpha1 on `LockApi`. */
import type { TryLockRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/TryLockRequest.js';
import type { TryLockResponse } from '@svc/proto/gen/svc/proto/runtime/v1/TryLockResponse.js';
import type { UnlockRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/UnlockRequest.js';
import type { UnlockResponse } from '@svc/proto/gen/svc/proto/runtime/v1/UnlockResponse.js';
import type { LockApi } from '../../../lock/lock-api.js';
import type { Handler } from './handler.js';

export function lockHandlers(api: LockApi) {
  return {
    TryLockAlpha1: ((req) => api.tryLock(req.storeName, req)) satisfies Handler<TryLockRequest__Output, TryLockResponse>,
    UnlockAlpha1: ((req) => api.unlock(req.storeName, req)) satisfies Handler<UnlockRequest__Output, UnlockResponse>,
  };
}
