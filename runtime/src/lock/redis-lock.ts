/**
 * `lock.redis`: locks on one Redis server (no cluster, no failover: a lock taken on a primary that fails before
 * replicating would be granted twice). A lock is a key holding its owner with the expiry as its TTL.
 */
import type { Redis } from 'ioredis';
import { UNLOCK_STATUS, type LockStore, type UnlockStatus } from '../components/contracts/lock-store.js';
import { closeRedis, connectRedis, type RedisStoreOptions } from '../stores/redis-connection.js';

/**
 * Compare-and-delete in one step, so a lock that expired and was taken by another owner between a GET and a DEL
 * is never released by the previous holder. Answers as components-contrib's script: -1 no lock, -2 someone else's.
 */
const UNLOCK_SCRIPT = `
local v = redis.call('GET', KEYS[1])
if v == false then return -1 end
if v ~= ARGV[1] then return -2 end
return redis.call('DEL', KEYS[1])`;

export class RedisLockStore implements LockStore {
  private constructor(private readonly redis: Redis) {}

  static async connect(opts: RedisStoreOptions): Promise<RedisLockStore> {
    return new RedisLockStore(await connectRedis(opts));
  }

  async tryLock(key: string, owner: string, expiryInSeconds: number): Promise<boolean> {
    return (await this.redis.set(key, owner, 'EX', expiryInSeconds, 'NX')) === 'OK';
  }

  async unlock(key: string, owner: string): Promise<UnlockStatus> {
    const answer = Number(await this.redis.eval(UNLOCK_SCRIPT, 1, key, owner));
    if (answer === -1) return UNLOCK_STATUS.LOCK_DOES_NOT_EXIST;
    return answer === -2 ? UNLOCK_STATUS.LOCK_BELONGS_TO_OTHERS : UNLOCK_STATUS.SUCCESS;
  }

  async pingServer(): Promise<void> {
    await this.redis.ping();
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }
}
