/**
 * The name registries standalone service invocation resolves through, against the real stores: a sidecar's record
 * found while its lease runs, gone when it lapses or is removed, one shared secret for everyone (first writer wins).
 */
import { expect } from 'chai';
import path from 'node:path';
import { pino } from 'pino';
import { parsePgConnection } from '../../src/stores/pg-connection.js';
import { redisOptionsFromMetadata } from '../../src/stores/redis-connection.js';
import type { RegistryBackend } from '../../src/components/name-resolution/lease-registry.js';
import { LeaseRegistry } from '../../src/components/name-resolution/lease-registry.js';
import { PostgresRegistry } from '../../src/components/name-resolution/postgres-registry.js';
import { RedisRegistry } from '../../src/components/name-resolution/redis-registry.js';
import { SqliteRegistry } from '../../src/components/name-resolution/sqlite-registry.js';
import { deleteRedisKeysWithPrefix, dropTestPostgresTable, eventually, tempFolder, TEST_POSTGRES_URL, TEST_REDIS_HOST } from '../support/index.js';

const log = pino({ level: 'silent' });
/** The SQLite registry is one file per host: every backend here opens the same one, as every svcd of a host does. */
const SQLITE_FILE = path.join(tempFolder('registry-'), 'r.db');
/** Keys and tables of this run only: the default ones hold the secret every svcd of the machine shares. */
const RUN = `t${process.pid}x${Date.now()}`;
const stores: Record<string, () => RegistryBackend> = {
  sqlite: () => new SqliteRegistry(SQLITE_FILE),
  redis: () => new RedisRegistry(redisOptionsFromMetadata((name) => (name === 'redisHost' ? TEST_REDIS_HOST : undefined)), `registry-test-${RUN}`),
  postgresql: () => new PostgresRegistry(parsePgConnection(TEST_POSTGRES_URL), `registry_test_${RUN}`),
};
const cleanups: Record<string, () => Promise<unknown>> = {
  sqlite: () => Promise.resolve(),
  redis: () => deleteRedisKeysWithPrefix(`registry-test-${RUN}`),
  postgresql: () => Promise.all([dropTestPostgresTable(`registry_test_${RUN}`), dropTestPostgresTable(`registry_test_${RUN}_secret`)]),
};

for (const [kind, make] of Object.entries(stores)) {
  describe(`name registry on ${kind}`, function () {
    this.timeout(30_000);
    const app = `reg-${kind}-${process.pid}-${Date.now()}`;
    let a: RegistryBackend;
    let b: RegistryBackend;

    before(async () => {
      a = make();
      b = make();
      await a.init();
      await b.init();
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await cleanups[kind]!();
    });

    it('finds each live record of an app by namespace, and none of another app or namespace', async () => {
      await a.renew({ appId: app, namespace: 'default', hostId: 'h1', address: '127.0.0.1:1001' }, 10_000);
      await b.renew({ appId: app, namespace: 'default', hostId: 'h2', address: '127.0.0.1:1002' }, 10_000);
      await b.renew({ appId: app, namespace: 'other', hostId: 'h3', address: '127.0.0.1:1003' }, 10_000);
      expect((await a.live(app, 'default')).sort()).to.deep.equal(['127.0.0.1:1001', '127.0.0.1:1002']);
      expect(await b.live(app, 'other')).to.deep.equal(['127.0.0.1:1003']);
      expect(await a.live(`${app}-nobody`, 'default')).to.deep.equal([]);
    });

    it('drops a record whose lease lapsed, and one that was removed', async () => {
      await a.renew({ appId: app, namespace: 'lapse', hostId: 'short', address: '127.0.0.1:2001' }, 300);
      await a.renew({ appId: app, namespace: 'lapse', hostId: 'gone', address: '127.0.0.1:2002' }, 10_000);
      expect(await b.live(app, 'lapse')).to.have.length(2);
      await a.remove({ appId: app, namespace: 'lapse', hostId: 'gone', address: '127.0.0.1:2002' });
      expect(await b.live(app, 'lapse')).to.deep.equal(['127.0.0.1:2001']);
      await eventually('the short lease lapses', async () => (await b.live(app, 'lapse')).length === 0);
    });

    it('keeps one shared secret: the first offered wins for everyone', async () => {
      const first = await a.secret('first-offer');
      const second = await b.secret('second-offer');
      expect(second).to.equal(first);
      expect(await a.secret('third-offer')).to.equal(first);
    });

    it('through LeaseRegistry: renews while registered, removes on close', async () => {
      const registry = new LeaseRegistry(make(), { ttlMs: 600, log, newSecret: () => 'x' });
      const self = { appId: app, namespace: 'leased', hostId: 'r1', address: '127.0.0.1:3001' };
      await registry.register(self);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await b.live(app, 'leased'), 'renewed past its first TTL').to.deep.equal(['127.0.0.1:3001']);
      await registry.close();
      expect(await b.live(app, 'leased')).to.deep.equal([]);
    });
  });
}
