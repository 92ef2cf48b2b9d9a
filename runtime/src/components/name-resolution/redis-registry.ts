import type { Redis } from 'ioredis';
import { closeRedis, connectRedis, type RedisStoreOptions } from '../../stores/redis-connection.js';
import type { SidecarRecord } from '../contracts/name-resolution.js';
import type { RegistryBackend } from './lease-registry.js';

/** Keys start with this unless the Configuration names another `registryKeyPrefix` (sidecars that must meet share it). */
export const DEFAULT_REDIS_REGISTRY_PREFIX = 'svc-name-registry';

/**
 * Name resolution on Redis: a sorted set per app id (members `hostId address`, scored by expiry time in epoch
 * ms), read with one range query. Expiry is judged by the sidecars' clocks, which must agree within the TTL.
 */
export class RedisRegistry implements RegistryBackend {
  readonly kind = 'redis';
  #redis: Redis | undefined;

  constructor(
    private readonly options: RedisStoreOptions,
    private readonly prefix = DEFAULT_REDIS_REGISTRY_PREFIX,
  ) {}

  async init(): Promise<void> {
    this.#redis ??= await connectRedis(this.options);
  }

  async renew(r: SidecarRecord, ttlMs: number): Promise<void> {
    const key = this.#key(r.appId, r.namespace);
    await this.#open().multi().zadd(key, Date.now() + ttlMs, `${r.hostId} ${r.address}`).zremrangebyscore(key, '-inf', Date.now() - 60_000).exec();
  }

  async remove(r: SidecarRecord): Promise<void> {
    await this.#open().zrem(this.#key(r.appId, r.namespace), `${r.hostId} ${r.address}`);
  }

  async live(appId: string, namespace: string): Promise<string[]> {
    const members = await this.#open().zrangebyscore(this.#key(appId, namespace), Date.now(), '+inf');
    return members.map((m) => m.slice(m.indexOf(' ') + 1));
  }

  async secret(newSecret: string): Promise<string> {
    const redis = this.#open();
    await redis.set(`${this.prefix}||secret`, newSecret, 'NX');
    return (await redis.get(`${this.prefix}||secret`)) ?? newSecret;
  }

  async close(): Promise<void> {
    if (this.#redis) await closeRedis(this.#redis);
    this.#redis = undefined;
  }

  #key(appId: string, namespace: string): string {
    return `${this.prefix}||${namespace}||${appId}`;
  }

  #open(): Redis {
    if (!this.#redis) throw new Error('the name registry is not connected');
    return this.#redis;
  }
}
