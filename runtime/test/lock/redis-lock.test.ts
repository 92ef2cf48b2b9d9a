/**
 * `lock.redis` against the shared test Redis (owners, expiry, compare-and-delete) and the keys the lock API gives
 * it (Dapr's `lock||<prefix>||<resourceId>`).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { UNLOCK_STATUS } from '../../src/components/contracts/lock-store.js';
import { lockKey } from '../../src/lock/lock-key.js';
import { RedisLockStore } from '../../src/lock/redis-lock.js';
import { redisOptionsFromMetadata } from '../../src/stores/redis-connection.js';
import { expectRuntimeError } from '../support/expect-runtime-error.js';
import { TEST_REDIS_HOST, deleteRedisKeysWithPrefix, withTestRedis } from '../support/index.js';

describe('lock.redis (real Redis)', function () {
  this.timeout(20_000);
  const prefix = `locktest-${randomUUID()}||`;
  let store: RedisLockStore;

  before(async () => {
    store = await RedisLockStore.connect(redisOptionsFromMetadata((name) => (name === 'redisHost' ? TEST_REDIS_HOST : undefined)));
  });
  after(async () => {
    await store?.close();
    await deleteRedisKeysWithPrefix(prefix);
  });

  it('grants a free lock once: a second owner, and the holder itself, are refused while it is held', async () => {
    const key = `${prefix}a`;
    expect(await store.tryLock(key, 'owner-1', 10)).to.equal(true);
    expect(await store.tryLock(key, 'owner-2', 10)).to.equal(false);
    expect(await store.tryLock(key, 'owner-1', 10), 'not reentrant, as Dapr').to.equal(false);
    expect(await withTestRedis((r) => r.get(key))).to.equal('owner-1');
    const ttl = await withTestRedis((r) => r.ttl(key));
    expect(ttl).to.be.within(9, 10);
  });

  it('unlocks only for the holder, telling a missing lock from another owner', async () => {
    const key = `${prefix}b`;
    expect(await store.unlock(key, 'owner-1')).to.equal(UNLOCK_STATUS.LOCK_DOES_NOT_EXIST);
    await store.tryLock(key, 'owner-1', 10);
    expect(await store.unlock(key, 'owner-2')).to.equal(UNLOCK_STATUS.LOCK_BELONGS_TO_OTHERS);
    expect(await store.unlock(key, 'owner-1')).to.equal(UNLOCK_STATUS.SUCCESS);
    expect(await store.tryLock(key, 'owner-2', 10), 'free again once released').to.equal(true);
  });

  it('frees a lock when its expiry passes, not before', async () => {
    const key = `${prefix}c`;
    await store.tryLock(key, 'owner-1', 1);
    await new Promise((r) => setTimeout(r, 700));
    expect(await store.tryLock(key, 'owner-2', 1)).to.equal(false);
    await new Promise((r) => setTimeout(r, 500));
    expect(await store.tryLock(key, 'owner-2', 1)).to.equal(true);
  });
});

describe('lock keys (Dapr keyPrefix strategies)', () => {
  const ctx = { appId: 'orders', storeName: 'locks' };
  it('prefixes with the app id by default, the store name, nothing, or a custom string', () => {
    expect(lockKey('r1', { ...ctx, keyPrefix: undefined })).to.equal('lock||orders||r1');
    expect(lockKey('r1', { ...ctx, keyPrefix: 'AppID' })).to.equal('lock||orders||r1');
    expect(lockKey('r1', { ...ctx, keyPrefix: 'name' })).to.equal('lock||locks||r1');
    expect(lockKey('r1', { ...ctx, keyPrefix: 'none' })).to.equal('lock||r1');
    expect(lockKey('r1', { ...ctx, keyPrefix: 'Shared' })).to.equal('lock||shared||r1');
    expect(lockKey('r1', { ...ctx, appId: '', keyPrefix: undefined })).to.equal('lock||r1');
  });
  it('refuses a resource id or prefix holding the separator (400)', () => {
    expectRuntimeError(() => lockKey('a||b', { ...ctx, keyPrefix: undefined }), 'ERR_MALFORMED_REQUEST', /can't contain '\|\|'/);
    expectRuntimeError(() => lockKey('a', { ...ctx, keyPrefix: 'x||y' }), 'ERR_MALFORMED_REQUEST', /can't contain '\|\|'/);
  });
});
