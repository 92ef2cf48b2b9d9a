import { Redis } from 'ioredis';
import pg from 'pg';
import { placementTables } from '../../src/state/postgres-placement.js';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { TEST_NATS_URL, TEST_POSTGRES_URL, TEST_REDIS_HOST } from './services.js';

/** A short-lived connection to the shared test Redis, closed whatever `work` does. */
export async function withTestRedis<T>(work: (redis: Redis) => Promise<T>): Promise<T> {
  const [host, port] = TEST_REDIS_HOST.split(':');
  const redis = new Redis({ host, port: Number(port ?? 6379) });
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

/** A short-lived connection to the shared test PostgreSQL database, closed whatever `work` does. */
export async function withTestPostgres<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(TEST_POSTGRES_URL);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Deletes every key starting with `prefix` (a test run's app ID): SCAN, not KEYS, and deletes in batches,
 * because a workflow bench run leaves ~100k keys and other engineers' tests share the server.
 */
export async function deleteRedisKeysWithPrefix(prefix: string): Promise<void> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  await withTestRedis(async (redis) => {
    for await (const keys of redis.scanStream({ match: pattern, count: 1000 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.del(...keys);
    }
  });
}

/**
 * Drops a state table a test run created (named by the test itself: `[a-z0-9_]` with a random suffix) and the
 * placement tables svcd creates beside it.
 */
export async function dropTestPostgresTable(table: string): Promise<void> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new Error(`refusing to drop '${table}': not a plain table name`);
  const { hosts, partitions, tokens } = placementTables(table);
  await withTestPostgres((client) => client.query(`DROP TABLE IF EXISTS ${table}, ${hosts}, ${partitions}, ${tokens}`));
}

/** Deletes a JetStream stream a test run created (named by the test, with a random part), with its consumers. */
export async function deleteJetStreamStream(name: string): Promise<void> {
  const nc = await connect({ servers: TEST_NATS_URL });
  try {
    await (await jetstreamManager(nc)).streams.delete(name).catch(() => false);
  } finally {
    await nc.close();
  }
}
