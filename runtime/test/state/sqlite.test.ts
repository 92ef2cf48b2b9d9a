import Database from 'better-sqlite3';
import { expect } from 'chai';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteStateStore, sqliteOptionsFromMetadata } from '../../src/state/sqlite.js';
import { describeStateStoreConformance } from '../conformance/state-store-conformance.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sqlite-store-'));
const metadata = (md: Record<string, string>) => (name: string) => md[name];

describeStateStoreConformance(
  'state.sqlite',
  () => SqliteStateStore.open(sqliteOptionsFromMetadata(metadata({}), { componentName: 'conformance', dataDir: dir })),
  () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
);

describe('state.sqlite specifics', () => {
  it('puts the database in <dataDir>/<componentName>.db in WAL mode', async () => {
    const work = mkdtempSync(path.join(os.tmpdir(), 'svc-sqlite-wal-'));
    const opts = sqliteOptionsFromMetadata(metadata({}), { componentName: 'mystore', dataDir: work });
    expect(opts.databasePath).to.equal(path.join(work, 'mystore.db'));
    const store = await SqliteStateStore.open(opts);
    await store.set({ key: 'k', value: Buffer.from('"v"') });
    const db = new Database(opts.databasePath, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).to.equal('wal');
    expect(db.prepare('SELECT value FROM state WHERE key = ?').pluck().get('k')).to.deep.equal(Buffer.from('"v"'));
    db.close();
    await store.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('checkpoints the WAL on a worker thread: a thousand rows written reach the database file without a checkpoint on the writer', async () => {
    const work = mkdtempSync(path.join(os.tmpdir(), 'svc-sqlite-ckpt-'));
    const opts = sqliteOptionsFromMetadata(metadata({}), { componentName: 'c', dataDir: work });
    const store = await SqliteStateStore.open(opts);
    // 1,500 small rows: far below the 1,000 WAL pages at which the writer itself would checkpoint.
    await store.bulkSet(Array.from({ length: 1500 }, (_, i) => ({ key: `k${i}`, value: Buffer.from(String(i)) })));
    await store.walCheckpointed();
    // The database file alone (its WAL left behind) holds only what was checkpointed into it.
    const copy = path.join(work, 'copy.db');
    copyFileSync(opts.databasePath, copy);
    const db = new Database(copy, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM state').pluck().get()).to.equal(1500);
    db.close();
    await store.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('opens a table of an earlier version (no expiry column): keeps its rows, adds the column, expires new TTL values', async () => {
    const work = mkdtempSync(path.join(os.tmpdir(), 'svc-sqlite-old-'));
    const opts = sqliteOptionsFromMetadata(metadata({}), { componentName: 'old', dataDir: work });
    const old = new Database(opts.databasePath);
    old.exec('CREATE TABLE state (key TEXT NOT NULL PRIMARY KEY, value BLOB NOT NULL, version INTEGER NOT NULL, update_time INTEGER NOT NULL)');
    old.prepare('INSERT INTO state VALUES (?, ?, 3, 0)').run('kept', Buffer.from('"old"'));
    old.close();
    const store = await SqliteStateStore.open(opts);
    try {
      expect(await store.get({ key: 'kept' })).to.deep.include({ data: Buffer.from('"old"'), etag: '3' });
      await store.set({ key: 'short', value: Buffer.from('1'), metadata: { ttlInSeconds: '1' } });
      expect((await store.get({ key: 'short' }))?.metadata?.ttlExpireTime).to.be.a('string');
      await new Promise((r) => setTimeout(r, 1300));
      expect(await store.get({ key: 'short' })).to.equal(undefined);
      expect(await store.sweepExpired(), 'the expired row is removed, the others stay').to.equal(1);
      expect(await store.get({ key: 'kept' })).to.not.equal(undefined);
    } finally {
      await store.close();
    }
    const db = new Database(opts.databasePath, { readonly: true });
    expect((db.prepare('PRAGMA table_info(state)').all() as { name: string }[]).map((c) => c.name)).to.include('expires_at');
    expect(db.prepare('SELECT key FROM state').pluck().all()).to.deep.equal(['kept']);
    db.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('reads databasePath, connectionString, tableName and synchronous from metadata', () => {
    const ctx = { componentName: 'c', dataDir: '/data' };
    expect(sqliteOptionsFromMetadata(metadata({ databasePath: 'x/y.db' }), ctx).databasePath).to.equal('/data/x/y.db');
    expect(sqliteOptionsFromMetadata(metadata({ connectionString: '/abs/z.db' }), ctx).databasePath).to.equal('/abs/z.db');
    expect(sqliteOptionsFromMetadata(metadata({ connectionString: 'file:rel.db' }), ctx).databasePath).to.equal('/data/rel.db');
    const opts = sqliteOptionsFromMetadata(metadata({ tableName: 'kv', synchronous: 'full' }), ctx);
    expect([opts.tableName, opts.synchronous]).to.deep.equal(['kv', 'FULL']);
    expect(() => sqliteOptionsFromMetadata(metadata({ synchronous: 'sometimes' }), ctx)).to.throw(/synchronous/);
  });

  it('refuses a table name that is not an identifier', async () => {
    const opts = sqliteOptionsFromMetadata(metadata({ tableName: 'state; DROP TABLE x' }), { componentName: 'c', dataDir: dir });
    let failure: unknown;
    await SqliteStateStore.open(opts).catch((err: unknown) => (failure = err));
    expect(String(failure)).to.match(/tableName/);
  });
});
