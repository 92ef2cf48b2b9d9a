import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresStateStore, postgresOptionsFromMetadata } from '../../src/state/postgresql.js';
import { inTransaction } from '../../src/stores/pg-transaction.js';
import { quotedCompanionTableName } from '../../src/stores/sql-identifier.js';
import { describeStateStoreConformance } from '../conformance/state-store-conformance.js';
import { dropTestPostgresTable, freePort, TEST_POSTGRES_URL, withTestPostgres } from '../support/index.js';

const table = `state_conformance_${randomBytes(4).toString('hex')}`;
const metadata = (md: Record<string, string>) => (name: string) => md[name];

describeStateStoreConformance(
  'state.postgresql',
  () => PostgresStateStore.connect(postgresOptionsFromMetadata(metadata({ connectionString: TEST_POSTGRES_URL, tableName: table }))),
  () => dropTestPostgresTable(table),
);

describe('state.postgresql specifics', () => {
  it('requires connectionString and a plain table name', () => {
    expect(() => postgresOptionsFromMetadata(metadata({}))).to.throw(/connectionString is required/);
    expect(postgresOptionsFromMetadata(metadata({ connectionString: 'postgres://x' })).tableName).to.equal('state');
  });

  it('connects with a libpq key=value connection string, and with the anchor\'s documented form (database=, hostaddr=)', async () => {
    const { hostname, port, username, pathname } = new URL(TEST_POSTGRES_URL);
    const forms = [
      `host=${hostname} port=${port || 5432} user='${username}' dbname=${pathname.slice(1)} application_name='svc kv test' connect_timeout=5 sslmode=disable`,
      `host=${hostname} user=${username} port=${port || 5432} connect_timeout=10 database=${pathname.slice(1)}`,
      `hostaddr=127.0.0.1 port=${port || 5432} user=${username} database=${pathname.slice(1)} sslmode=disable`,
    ];
    for (const [i, connectionString] of forms.entries()) {
      const store = await PostgresStateStore.connect(postgresOptionsFromMetadata(metadata({ connectionString, tableName: table })));
      try {
        await store.set({ key: `kv-form-${i}`, value: Buffer.from(String(i)) });
        expect((await store.get({ key: `kv-form-${i}` }))?.data.toString(), connectionString).to.equal(String(i));
      } finally {
        await store.close();
      }
    }
  });

  it('sweeps expired rows: only they go', async () => {
    const swept = `state_sweep_${randomBytes(4).toString('hex')}`;
    const store = await PostgresStateStore.connect(postgresOptionsFromMetadata(metadata({ connectionString: TEST_POSTGRES_URL, tableName: swept })));
    try {
      await store.bulkSet([1, 2, 3].map((n) => ({ key: `t${n}`, value: Buffer.from('1'), metadata: { ttlInSeconds: '1' } })));
      await store.set({ key: 'kept', value: Buffer.from('1') });
      await new Promise((r) => setTimeout(r, 1300));
      expect(await store.sweepExpired()).to.equal(3);
      const rows = await withTestPostgres((client) => client.query<{ key: string }>(`SELECT key FROM ${swept}`));
      expect(rows.rows.map((r) => r.key)).to.deep.equal(['kept']);
    } finally {
      await store.close();
      await dropTestPostgresTable(swept);
    }
  });

  it('maps key=value pairs as libpq reads them: quotes, backslash escapes, sslmode and connect_timeout', () => {
    const opts = postgresOptionsFromMetadata(
      metadata({ connectionString: String.raw`  host = db.example port=6543 user=app password='it\'s a \\ secret' dbname=orders sslmode=require connect_timeout=3 application_name=svc` }),
    );
    expect(opts.connection).to.deep.equal({
      host: 'db.example',
      port: 6543,
      user: 'app',
      password: String.raw`it's a \ secret`,
      database: 'orders',
      ssl: { rejectUnauthorized: false },
      application_name: 'svc',
    });
    expect(opts.connectTimeoutMs).to.equal(3_000);
    expect(postgresOptionsFromMetadata(metadata({ connectionString: String.raw`password=a\ b` })).connection).to.deep.equal({ password: 'a b' });
    expect(postgresOptionsFromMetadata(metadata({ connectionString: 'postgresql://u@h/db' })).connection).to.deep.equal({ connectionString: 'postgresql://u@h/db' });
  });

  it('rejects unknown keys and bad values in a key=value connection string, naming them', () => {
    const parse = (connectionString: string) => () => postgresOptionsFromMetadata(metadata({ connectionString }));
    expect(parse('host=h sslcert=/x')).to.throw(/connectionString: unknown key 'sslcert'/);
    expect(parse('host=h port=abc')).to.throw(/port 'abc' must be a number/);
    expect(parse('host=h sslmode=maybe')).to.throw(/sslmode 'maybe' must be one of/);
    expect(parse("host=h password='open")).to.throw(/unterminated quoted value for 'password'/);
    expect(parse('base')).to.throw(/missing '=' after 'base'/);
  });

  it('fails to connect to a wrong address with the reason', async () => {
    const port = await freePort(); // free, so nothing listens there
    let failure: unknown;
    await PostgresStateStore.connect(postgresOptionsFromMetadata(metadata({ connectionString: `postgres://postgres@127.0.0.1:${port}/test` }))).catch(
      (err: unknown) => (failure = err),
    );
    expect(String(failure)).to.match(/cannot use PostgreSQL table state: .*ECONNREFUSED/);
  });

  it('names companion tables after the table, within 63 characters and distinct for long names', () => {
    expect(quotedCompanionTableName('app.state', 'placement_hosts')).to.equal('"app"."state_placement_hosts"');
    const long = `t${'x'.repeat(60)}`;
    const names = ['placement_hosts', 'placement_partitions'].map((suffix) => quotedCompanionTableName(long, suffix));
    for (const name of names) expect(name.length - 2).to.equal(63);
    expect(names[0]).to.not.equal(names[1]);
    expect(quotedCompanionTableName(`${long}y`, 'placement_hosts')).to.not.equal(names[0]);
    expect(() => quotedCompanionTableName('bad-name', 'placement_hosts')).to.throw(/tableName/);
  });

  it('lists keys with a range of a byte-order index: the primary key of a new table, an added index on an older one', async () => {
    const fresh = `list_new_${randomBytes(4).toString('hex')}`;
    const older = `list_old_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client(TEST_POSTGRES_URL);
    await admin.connect();
    try {
      // As earlier svcd versions created it: the key ordered by the database's collation ("en_US"-like when not C).
      await admin.query(`CREATE TABLE ${older} (key TEXT COLLATE "default" NOT NULL PRIMARY KEY, value BYTEA NOT NULL, version BIGINT NOT NULL, update_time TIMESTAMPTZ NOT NULL DEFAULT now())`);
      for (const name of [fresh, older]) {
        const store = await PostgresStateStore.connect(postgresOptionsFromMetadata(metadata({ connectionString: TEST_POSTGRES_URL, tableName: name })));
        store.declareListedPrefix('p||');
        await store.bulkSet(['p||b', 'p||a', 'q||a'].map((key) => ({ key, value: Buffer.from(key) })));
        expect((await store.listKeys('p||', { limit: 10 })).map((e) => e.key)).to.deep.equal(['p||a', 'p||b']);
        await store.close();
        await admin.query('BEGIN');
        // A tiny table: make every plan but an ordered index scan look expensive, so the test shows one is possible.
        await admin.query('SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off');
        const plan = await admin.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT key, value FROM ${name} WHERE key COLLATE "C" > 'p||' AND key COLLATE "C" < 'p|}' ORDER BY key COLLATE "C" LIMIT 10`,
        );
        await admin.query('COMMIT');
        expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n'), name).to.match(/Index (Only )?Scan/).and.not.match(/Seq Scan|Sort/);
      }
      const indexes = await admin.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname', [older]);
      // The older table also got the expiry column and its partial index (ttlInSeconds).
      expect(indexes.rows.map((r) => r.indexname)).to.deep.equal([`${older}_expires_at`, `${older}_key_bytes`, `${older}_pkey`]);
      const freshIndexes = await admin.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname', [fresh]);
      expect(freshIndexes.rows.map((r) => r.indexname)).to.deep.equal([`${fresh}_expires_at`, `${fresh}_pkey`]);
    } finally {
      await dropTestPostgresTable(fresh);
      await dropTestPostgresTable(older);
      await admin.end();
    }
  });

  it('creates its table (and its placement tables) in a schema when tableName is schema.table', async () => {
    const schema = `svc_test_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client(TEST_POSTGRES_URL);
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    try {
      const store = await PostgresStateStore.connect(postgresOptionsFromMetadata(metadata({ connectionString: TEST_POSTGRES_URL, tableName: `${schema}.kv` })));
      await store.set({ key: 'k', value: Buffer.from('1') });
      await store.placementBackend('app').init();
      await store.close();
      const rows = await admin.query(`SELECT key, version FROM ${schema}.kv`);
      expect(rows.rows).to.deep.equal([{ key: 'k', version: '1' }]);
      const tables = await admin.query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name', [schema]);
      expect(tables.rows.map((r: { table_name: string }) => r.table_name)).to.deep.equal(['kv', 'kv_placement_hosts', 'kv_placement_partitions', 'kv_placement_tokens']);
    } finally {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  });
});

describe('PostgreSQL bulk writes', () => {
  it('applies a 12,000-write transaction in bulk statements, in order with the conditional writes among them', async function () {
    this.timeout(30_000);
    const table = `bulk_${randomBytes(4).toString('hex')}`;
    const store = await PostgresStateStore.connect(postgresOptionsFromMetadata(metadata({ connectionString: TEST_POSTGRES_URL, tableName: table })));
    try {
      await store.set({ key: 'guarded', value: Buffer.from('0') });
      const etag = (await store.get({ key: 'guarded' }))!.etag!;
      const many = Array.from({ length: 12_000 }, (_, i) => ({ operation: 'upsert' as const, request: { key: `k${i}`, value: Buffer.from(String(i)) } }));
      await store.transact([
        ...many,
        { operation: 'upsert', request: { key: 'guarded', value: Buffer.from('1'), etag } },
        { operation: 'delete', request: { key: 'k5' } },
        { operation: 'upsert', request: { key: 'k7', value: Buffer.from('seven') } },
      ]);
      expect((await store.get({ key: 'k11999' }))?.data.toString()).to.equal('11999');
      expect(await store.get({ key: 'k5' })).to.equal(undefined);
      expect((await store.get({ key: 'k7' }))?.data.toString()).to.equal('seven');
      expect((await store.get({ key: 'guarded' }))?.data.toString()).to.equal('1');
      // A failed condition after a bulk run rolls the whole transaction back.
      await store
        .transact([...many.slice(0, 10).map((op) => ({ ...op, request: { ...op.request, value: Buffer.from('x') } })), { operation: 'upsert', request: { key: 'guarded', value: Buffer.from('2'), etag } }])
        .then(() => expect.fail('a stale etag must fail the transaction'), () => undefined);
      expect((await store.get({ key: 'k0' }))?.data.toString()).to.equal('0');
    } finally {
      await store.close();
      await dropTestPostgresTable(table);
    }
  });
});

describe('PostgreSQL transactions when the server ends the session', () => {
  it('fail the transaction (no crash, no broken client back in the pool) when the session is ended between statements', async () => {
    const pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 1 });
    const admin = new pg.Client(TEST_POSTGRES_URL);
    await admin.connect();
    try {
      const err = await inTransaction(pool, async (client) => {
        const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        // Idle in the transaction, as a paused process would be, when PostgreSQL ends the session.
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        await new Promise((r) => setTimeout(r, 300));
        await client.query('SELECT 1');
      }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
      // The pool hands out a working client afterwards.
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).to.equal(1);
    } finally {
      await admin.end();
      await pool.end();
    }
  });
});
