/**
 * `configuration.redis` and `configuration.postgresql` against the shared test servers: items read by key and all
 * at once, in Dapr's formats (`value||version` strings; key/value/version/metadata rows), and watched changes
 * (keyspace notifications; LISTEN/NOTIFY through the trigger docs/configuration-api.md installs), deletions reported
 * as empty items.
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { ConfigurationItems } from '../../src/components/contracts/configuration-store.js';
import { PostgresConfigurationStore, postgresConfigurationOptions } from '../../src/configuration/postgres-configuration.js';
import { RedisConfigurationStore } from '../../src/configuration/redis-configuration.js';
import { parseItem } from '../../src/configuration/redis-item.js';
import { createLogger } from '../../src/log/logger.js';
import { redisOptionsFromMetadata } from '../../src/stores/redis-connection.js';
import { TEST_POSTGRES_URL, TEST_REDIS_HOST, configurationTableSql, eventually, freePort, PrivateRedisServer, TcpProxy, withTestPostgres, withTestRedis } from '../support/index.js';

const log = createLogger({ level: 'error', json: true });

/** The changes a watch reported, merged in order. */
function recorder(): { seen: ConfigurationItems[]; onChange: (items: ConfigurationItems) => void } {
  const seen: ConfigurationItems[] = [];
  return { seen, onChange: (items) => void seen.push(items) };
}

describe('configuration.redis (real Redis)', function () {
  this.timeout(20_000);
  // A database of its own, so "every key" is this test's keys.
  const db = '7';
  const prefix = `cfg-${randomUUID()}-`;
  const [a, b, c] = ['a', 'b', 'c'].map((k) => prefix + k) as [string, string, string];
  let store: RedisConfigurationStore;
  const redis = <T>(work: (r: Parameters<Parameters<typeof withTestRedis>[0]>[0]) => Promise<T>) => withTestRedis(async (r) => (await r.select(Number(db)), work(r)));

  before(async () => {
    store = await RedisConfigurationStore.connect(redisOptionsFromMetadata((n) => ({ redisHost: TEST_REDIS_HOST, redisDB: db })[n]), log);
    await redis((r) => r.mset(a, 'one||v1', b, 'two', c, 'x||v3||extra'));
  });
  after(async () => {
    await store?.close();
    await redis((r) => r.del(a, b, c));
  });

  it("reads Dapr's value||version strings", () => {
    expect(parseItem('one||v1')).to.deep.equal({ value: 'one', version: 'v1', metadata: {} });
    expect(parseItem('two')).to.deep.equal({ value: 'two', version: '', metadata: {} });
    expect(parseItem('x||v3||extra')).to.deep.equal({ value: 'x', version: 'v3', metadata: {} });
  });

  it('gets the keys asked for that exist, or every key', async () => {
    expect(await store.get({ keys: [a, b, prefix + 'missing'], metadata: {} })).to.deep.equal({
      [a]: { value: 'one', version: 'v1', metadata: {} },
      [b]: { value: 'two', version: '', metadata: {} },
    });
    const all = await store.get({ keys: [], metadata: {} });
    expect(all).to.include.keys(a, b, c);
  });

  it('reports changes of watched keys only, and a deletion as an empty item', async () => {
    const { seen, onChange } = recorder();
    const watch = await store.watch({ keys: [a], metadata: {} }, onChange);
    try {
      await redis((r) => r.set(b, 'unwatched'));
      await redis((r) => r.set(a, 'uno||v2'));
      await redis((r) => r.del(a));
      await eventually('two changes of a', () => Promise.resolve(seen.length >= 2));
      expect(seen).to.deep.equal([{ [a]: { value: 'uno', version: 'v2', metadata: {} } }, { [a]: { value: '', version: '', metadata: {} } }]);
    } finally {
      await watch.close();
    }
  });

  it('reports changes of every key when none are named; nothing after close', async () => {
    const { seen, onChange } = recorder();
    const watch = await store.watch({ keys: [], metadata: {} }, onChange);
    await redis((r) => r.set(c, 'tres||v4'));
    await eventually('the change of c', () => Promise.resolve(seen.some((s) => s[c]?.value === 'tres')));
    await watch.close();
    const count = seen.length;
    await redis((r) => r.set(c, 'after'));
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.length).to.equal(count);
  });
});

describe('configuration.redis: a subscription whose pub/sub connection drops (a private redis-server)', function () {
  this.timeout(20_000);
  let server: PrivateRedisServer;
  let direct: Redis;
  let proxy: TcpProxy;
  let store: RedisConfigurationStore;

  before(async () => {
    const port = await freePort();
    server = await PrivateRedisServer.start(port);
    direct = new Redis({ host: '127.0.0.1', port });
    proxy = await TcpProxy.start({ host: '127.0.0.1', port });
    store = await RedisConfigurationStore.connect(redisOptionsFromMetadata((n) => ({ redisHost: `127.0.0.1:${proxy.port}` })[n]), log);
  });
  after(async () => {
    await store?.close();
    await proxy?.down();
    direct?.disconnect();
    await server?.stop();
  });

  it('subscribes again after CLIENT KILL TYPE pubsub: a change made after that arrives', async () => {
    const { seen, onChange } = recorder();
    const watch = await store.watch({ keys: ['e'], metadata: {} }, onChange);
    try {
      expect(await direct.call('CLIENT', 'KILL', 'TYPE', 'pubsub')).to.equal(1);
      // Written until one arrives: the first ones may land while the watch resubscribes, and are then re-read.
      let n = 0;
      await eventually('a change after the kill', async () => {
        await direct.set('e', `after-kill||v${++n}`);
        await new Promise((r) => setTimeout(r, 100));
        return seen.some((s) => s.e?.value === 'after-kill');
      });
    } finally {
      await watch.close();
    }
  });

  it('reports the changes made while it could not reconnect once it can, deletions included', async () => {
    await direct.mset('f', 'before||v1', 'g', 'doomed||v1');
    const { seen, onChange } = recorder();
    const watch = await store.watch({ keys: ['f', 'g', 'h'], metadata: {} }, onChange);
    try {
      await proxy.down();
      await direct.set('f', 'while-down||v2');
      await direct.del('g');
      await direct.set('h', 'new||v1');
      await new Promise((r) => setTimeout(r, 500)); // reconnects are refused meanwhile
      expect(seen, 'nothing reported while the server is away').to.deep.equal([]);
      await proxy.up();
      await eventually('the changes made meanwhile', () => Promise.resolve(seen.length > 0));
      expect(seen).to.deep.equal([{ f: { value: 'while-down', version: 'v2', metadata: {} }, g: { value: '', version: '', metadata: {} }, h: { value: 'new', version: 'v1', metadata: {} } }]);
      await direct.set('f', 'back||v3');
      await eventually('a change on the new connection', () => Promise.resolve(seen.length > 1));
      expect(seen[1]).to.deep.equal({ f: { value: 'back', version: 'v3', metadata: {} } });
    } finally {
      await watch.close();
    }
  });
});

describe('configuration.postgresql (real PostgreSQL)', function () {
  this.timeout(20_000);
  const table = `cfg_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const channel = `${table}_changes`;
  let store: PostgresConfigurationStore;

  before(async () => {
    await withTestPostgres(async (pgc) => {
      await pgc.query(configurationTableSql(table, channel));
      await pgc.query(`INSERT INTO ${table} (key, value, version, metadata) VALUES ('a', 'one', 'v1', '{"owner": "ops", "n": 1}'), ('b', 'two', 'v1', NULL)`);
    });
    store = await PostgresConfigurationStore.connect(postgresConfigurationOptions((n) => ({ connectionString: TEST_POSTGRES_URL, table })[n]), log);
  });
  after(async () => {
    await store?.close();
    await withTestPostgres((pgc) => pgc.query(`DROP TABLE IF EXISTS ${table}; DROP FUNCTION IF EXISTS ${table}_notify()`));
  });

  it('gets rows by key (metadata as strings), or every row', async () => {
    expect(await store.get({ keys: ['a', 'missing'], metadata: {} })).to.deep.equal({ a: { value: 'one', version: 'v1', metadata: { owner: 'ops', n: '1' } } });
    expect(Object.keys(await store.get({ keys: [], metadata: {} })).sort()).to.deep.equal(['a', 'b']);
  });

  it('reports inserts, updates and deletes of watched keys through the trigger', async () => {
    const { seen, onChange } = recorder();
    const watch = await store.watch({ keys: ['a', 'c'], metadata: { pgNotifyChannel: channel } }, onChange);
    try {
      await withTestPostgres(async (pgc) => {
        await pgc.query(`UPDATE ${table} SET value = 'uno', version = 'v2' WHERE key = 'a'`);
        await pgc.query(`UPDATE ${table} SET value = 'unwatched' WHERE key = 'b'`);
        await pgc.query(`INSERT INTO ${table} (key, value, version) VALUES ('c', 'three', 'v1')`);
        await pgc.query(`DELETE FROM ${table} WHERE key = 'a'`);
      });
      await eventually('three changes', () => Promise.resolve(seen.length >= 3));
      expect(seen).to.deep.equal([
        { a: { value: 'uno', version: 'v2', metadata: { owner: 'ops', n: '1' } } },
        { c: { value: 'three', version: 'v1', metadata: {} } },
        { a: { value: '', version: '', metadata: {} } },
      ]);
    } finally {
      await watch.close();
    }
  });

  describe('a subscription whose LISTEN connection drops', () => {
    const applicationName = `cfg-watch-${randomUUID()}`;
    let proxy: TcpProxy;
    let proxied: PostgresConfigurationStore;

    before(async () => {
      const url = new URL(TEST_POSTGRES_URL);
      proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
      url.host = `127.0.0.1:${proxy.port}`;
      url.searchParams.set('application_name', applicationName);
      proxied = await PostgresConfigurationStore.connect(postgresConfigurationOptions((n) => ({ connectionString: url.href, table })[n]), log);
    });
    after(async () => {
      await proxied?.close();
      await proxy?.down();
    });
    const change = (sql: string) => withTestPostgres((pgc) => pgc.query(sql));

    it('LISTENs again after its backend is terminated: a change made after that arrives', async () => {
      const { seen, onChange } = recorder();
      const watch = await proxied.watch({ keys: ['e'], metadata: { pgNotifyChannel: channel } }, onChange);
      try {
        const terminated = await withTestPostgres((pgc) =>
          pgc.query<{ pid: number }>(`SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, [applicationName]),
        );
        expect(terminated.rowCount, 'the LISTEN backend (and any idle pool connection) terminated').to.be.greaterThan(0);
        // Written until one arrives: the first ones may land while the watch reconnects, and are then re-read.
        let n = 0;
        await eventually('a change after the termination', async () => {
          await change(`INSERT INTO ${table} (key, value, version) VALUES ('e', 'after-kill', 'v${++n}') ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, version = EXCLUDED.version`);
          await new Promise((r) => setTimeout(r, 100));
          return seen.some((s) => s.e?.value === 'after-kill');
        });
      } finally {
        await watch.close();
      }
    });

    it('reports the changes made while it could not reconnect once it can, deletions included', async () => {
      await change(`INSERT INTO ${table} (key, value, version) VALUES ('f', 'before', 'v1'), ('g', 'doomed', 'v1') ON CONFLICT (key) DO NOTHING`);
      const { seen, onChange } = recorder();
      const watch = await proxied.watch({ keys: ['f', 'g', 'h'], metadata: { pgNotifyChannel: channel } }, onChange);
      try {
        await proxy.down();
        await change(`UPDATE ${table} SET value = 'while-down', version = 'v2' WHERE key = 'f'`);
        await change(`DELETE FROM ${table} WHERE key = 'g'`);
        await change(`INSERT INTO ${table} (key, value, version) VALUES ('h', 'new', 'v1')`);
        await new Promise((r) => setTimeout(r, 500)); // reconnects are refused meanwhile
        expect(seen, 'nothing reported while the server is away').to.deep.equal([]);
        await proxy.up();
        await eventually('the changes made meanwhile', () => Promise.resolve(seen.length > 0));
        expect(seen).to.deep.equal([{ f: { value: 'while-down', version: 'v2', metadata: {} }, g: { value: '', version: '', metadata: {} }, h: { value: 'new', version: 'v1', metadata: {} } }]);
        await change(`UPDATE ${table} SET value = 'back', version = 'v3' WHERE key = 'f'`);
        await eventually('a change on the new connection', () => Promise.resolve(seen.length > 1));
        expect(seen[1]).to.deep.equal({ f: { value: 'back', version: 'v3', metadata: {} } });
      } finally {
        await watch.close();
      }
    });
  });

  it('refuses a watch without pgNotifyChannel (400)', async () => {
    const err = await store.watch({ keys: [], metadata: {} }, () => undefined).catch((e: unknown) => e);
    expect((err as { code?: string }).code).to.equal('ERR_MALFORMED_REQUEST');
  });
});
