/**
 * Redis connections of every component on Redis (state store, placement, pub/sub): options from a component's
 * metadata, connect with a bounded first PING, duplicate, close.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { RuntimeError } from '../errors/runtime-error.js';

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
export function duplicateRedis(redis: Redis, override?: Partial<RedisOptions>): Redis {
  return ignoreConnectionErrors(redis.duplicate(override));
}

export interface RedisStoreOptions {
  readonly host: string;
  /** @default 6379 */
  readonly port: number;
  readonly username?: string;
  readonly password?: string;
  /** @default 0 */
  readonly db: number;
  readonly tls: boolean;
  /** Upper bound on connecting and the first PING at init; the component init timeout usually fires first. */
  readonly connectTimeoutMs: number;
}

/** Reads `state.redis` metadata: `redisHost` (`host:port`), `redisUsername`, `redisPassword`, `redisDB`, `enableTLS`. */
export function redisOptionsFromMetadata(get: (name: string) => string | undefined): RedisStoreOptions {
  const address = get('redisHost') || 'localhost:6379';
  const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(address);
  const port = Number(m?.[3] ?? 6379);
  if (!m || port < 1 || port > 65535) throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata redisHost '${address}' must be host:port`);
  const db = Number(get('redisDB') || 0);
  if (!Number.isInteger(db) || db < 0) throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata redisDB '${get('redisDB')}' must be a database number`);
  return {
    host: (m[1] ?? m[2])!,
    port,
    username: get('redisUsername') || undefined,
    password: get('redisPassword') || undefined,
    db,
    tls: (get('enableTLS') ?? '').toLowerCase() === 'true',
    connectTimeoutMs: 10_000,
  };
}

/** QUIT would wait for a reconnect that may never come: without a live connection it is just dropped. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}
