import type { Redis } from 'ioredis';
import { closeRedis, connectRedis, type RedisStoreOptions } from '../../stores/redis-connection.js';
import type { SidecarRecord } from '../contracts/name-resolution.js';
import type { RegistryBackend } from './lease-registry.js';

const PREFIX = 'svc-name-registry';

/**
 * Name resolution on Redis: a sorted set per app id (members `hostId address`, scored by expiry time in epoch
 * ms), read with one range query. Expiry is judged by the sidecars' clocks, which must agree within the TTL.
 */
export class RedisRegistry implements RegistryBackend {
  readonly kind = 'redis';
  #redis: Redis | undefined;

  constructor(private readonly options: RedisStoreOptions) {}

  async init(): Promise<void> {
    this.#redis ??= await connectRedis(this.options);
  }

  async renew(r: SidecarRecord, ttlMs: number): Promise<void> {
    const key = keyOf(r.appId, r.namespace);
    await this.#open().multi().zadd(key, Date.now() + ttlMs, `${r.hostId} ${r.address}`).zremrangebyscore(key, '-inf', Date.now() - 60_000).exec();
  }

  async remove(r: SidecarRecord): Promise<void> {
    await this.#open().zrem(keyOf(r.appId, r.namespace), `${r.hostId} ${r.address}`);
  }

  async live(appId: string, namespace: string): Promise<string[]> {
    const members = await this.#open().zrangebyscore(keyOf(appId, namespace), Date.now(), '+inf');
    return members.map((m) => m.slice(m.indexOf(' ') + 1));
  }

  async secret(newSecret: string): Promise<string> {
    const redis = this.#open();
    await redis.set(`${PREFIX}||secret`, newSecret, 'NX');
    return (await redis.get(`${PREFIX}||secret`)) ?? newSecret;
  }

  async close(): Promise<void> {
    if (this.#redis) await closeRedis(this.#redis);
    this.#redis = undefined;
  }

  #open(): Redis {
    if (!this.#redis) throw new Error('the name registry is not connected');
    return this.#redis;
  }
}

function keyOf(appId: string, namespace: string): string {
  return `${PREFIX}||${namespace}||${appId}`;
}
