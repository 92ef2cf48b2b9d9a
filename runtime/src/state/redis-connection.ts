import { Redis } from 'ioredis';
import type { RedisStoreOptions } from './redis.js';

/**
 * A connected client, or an error naming the address and the reason: a wrong address fails the component's init.
 * The client reconnects on its own afterwards; failed commands reject with the reason.
 */
export async function connectRedis(opts: RedisStoreOptions): Promise<Redis> {
  const redis = new Redis({
    host: opts.host,
    port: opts.port,
    username: opts.username,
    password: opts.password,
    db: opts.db,
    tls: opts.tls ? {} : undefined,
    lazyConnect: true,
    connectTimeout: opts.connectTimeoutMs,
    maxRetriesPerRequest: 3,
  });
  ignoreConnectionErrors(redis);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.connect().then(() => redis.ping()),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${opts.connectTimeoutMs} ms`)), opts.connectTimeoutMs))),
    ]);
  } catch (err) {
    redis.disconnect();
    throw new Error(`cannot connect to Redis at ${opts.host}:${opts.port}: ${(err as Error).message}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
  return redis;
}

/**
 * A client's connection errors are the reconnects it makes on its own; its failed commands say why to their
 * callers. Without a listener, ioredis prints every one as "[ioredis] Unhandled error event".
 */
function ignoreConnectionErrors(redis: Redis): Redis {
  return redis.on('error', () => undefined);
}

/** Another connection with the options of `redis` (subscribers, blocking readers, a placement heartbeat's own). */
export function duplicateRedis(redis: Redis): Redis {
  return ignoreConnectionErrors(redis.duplicate());
}
