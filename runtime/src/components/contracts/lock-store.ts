/**
 * The distributed lock building block's interface (Dapr's lock.Store): a lock is a key held by one owner until it
 * is released or its expiry passes. Keys reach the store already prefixed by the API (`lock||<appid>||<id>`).
 */
import type { Component } from '../registry.js';

/** Unlock's outcomes, numbered as Dapr's `UnlockResponse.Status` (the HTTP API answers the number). */
export const UNLOCK_STATUS = {
  SUCCESS: 0,
  LOCK_DOES_NOT_EXIST: 1,
  LOCK_BELONGS_TO_OTHERS: 2,
  INTERNAL_ERROR: 3,
} as const;
export type UnlockStatus = (typeof UNLOCK_STATUS)[keyof typeof UNLOCK_STATUS];

export interface LockStore extends Component {
  /** Takes the lock for `owner` unless anyone (`owner` too) holds it; true when taken. Never waits for it. */
  tryLock(key: string, owner: string, expiryInSeconds: number): Promise<boolean>;
  /** Releases the lock if `owner` holds it. */
  unlock(key: string, owner: string): Promise<UnlockStatus>;
}

export const isLockStore = (c: Component): c is LockStore =>
  typeof (c as Partial<LockStore>).tryLock === 'function' && typeof (c as Partial<LockStore>).unlock === 'function';
