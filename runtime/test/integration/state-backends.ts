/**
 * The three durable stores the state API integration tests run against, each isolated per test run (own data
 * dir, key prefix by random app id, own PostgreSQL table). `sabotage` makes the backing store fail for real.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type pg from 'pg';
import { deleteRedisKeysWithPrefix, dropTestPostgresTable, TEST_POSTGRES_URL, TEST_REDIS_HOST, withTestPostgres, withTestRedis } from '../support/index.js';

export interface StateBackend {
  readonly label: string;
  readonly type: string;
  /** Component metadata that points a store at this run's data; every store of one svcd shares the same data. */
  readonly metadata: Readonly<Record<string, string>>;
  /** The bytes stored under a store key (prefix included), read behind svcd's back. */
  peek(dataDir: string, storeKey: string): Promise<Buffer | undefined>;
  /** Makes operations on these store keys fail inside the store (it may break the whole store). */
  sabotage(dataDir: string, storeKeys: readonly string[]): Promise<void>;
  /** Removes what this run created on shared servers. */
  cleanup(keyPrefixes: readonly string[]): Promise<void>;
}

const SQLITE_FILE = 'state-test.db';

const sqlite: StateBackend = {
  label: 'SQLite',
  type: 'state.sqlite',
  metadata: { databasePath: SQLITE_FILE },
  peek(dataDir, storeKey) {
    const db = new Database(path.join(dataDir, SQLITE_FILE), { readonly: true });
    try {
      const row = db.prepare<[string], { value: Buffer }>('SELECT value FROM state WHERE key = ?').get(storeKey);
      return Promise.resolve(row?.value);
    } finally {
      db.close();
    }
  },
  sabotage(dataDir) {
    const db = new Database(path.join(dataDir, SQLITE_FILE));
    db.exec('DROP TABLE state');
    db.close();
    return Promise.resolve();
  },
  cleanup: () => Promise.resolve(),
};

const redis: StateBackend = {
  label: 'Redis',
  type: 'state.redis',
  metadata: { redisHost: TEST_REDIS_HOST },
  peek: (_dataDir, storeKey) => withTestRedis(async (r) => (await r.hgetBuffer(storeKey, 'data')) ?? undefined),
  // A plain string where a hash is expected: every command the store runs on these keys fails with WRONGTYPE.
  sabotage: (_dataDir, storeKeys) => withTestRedis(async (r) => void (await Promise.all(storeKeys.map((k) => r.set(k, 'not a hash'))))),
  cleanup: async (keyPrefixes) => {
    for (const prefix of keyPrefixes) await deleteRedisKeysWithPrefix(prefix);
  },
};

function postgres(): StateBackend {
  const table = `state_it_${randomBytes(4).toString('hex')}`;
  const query = <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => withTestPostgres((client) => client.query<R>(sql, params));
  return {
    label: 'PostgreSQL',
    type: 'state.postgresql',
    metadata: { connectionString: TEST_POSTGRES_URL, tableName: table },
    peek: async (_dataDir, storeKey) => (await query<{ value: Buffer }>(`SELECT value FROM ${table} WHERE key = $1`, [storeKey])).rows[0]?.value,
    sabotage: async () => void (await query(`DROP TABLE ${table}`)),
    cleanup: () => dropTestPostgresTable(table),
  };
}

export function stateBackends(): StateBackend[] {
  return [sqlite, redis, postgres()];
}
