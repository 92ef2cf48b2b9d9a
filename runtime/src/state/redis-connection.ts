import { Redis } from 'ioredis';
import type { RedisStoreOptions } from './redis.js';

/** While Redis is away, a reconnect is tried this often at most: it is back in use within this much of its return. */
const RECONNECT_EVERY_MS = 200;

/**
 * A connected client, or an error naming the address and the reason: a wrong address fails the component's init.
 * The client reconnects on its own afterwards, at most RECONNECT_EVERY_MS apart. A command issued while the
 * connection is down waits for the next reconnect and is sent on it when it succeeds (a dropped connection to a
 * live server costs no error); when that reconnect fails too, the command fails (`maxRetriesPerRequest: 1`). So
 * while Redis is away a call fails within two reconnect intervals; it waited through three reconnects at growing
 * intervals before (6 to 19 s measured).
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
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 50, RECONNECT_EVERY_MS),
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
