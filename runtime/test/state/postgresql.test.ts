import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresStateStore, postgresOptionsFromMetadata } from '../../src/state/postgresql.js';
import { describeStateStoreConformance } from '../conformance/state-store-conformance.js';
import { dropTestPostgresTable, freePort, TEST_POSTGRES_URL } from '../support/index.js';

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

  it('fails to connect to a wrong address with the reason', async () => {
    const port = await freePort(); // free, so nothing listens there
    let failure: unknown;
    await PostgresStateStore.connect(postgresOptionsFromMetadata(metadata({ connectionString: `postgres://postgres@127.0.0.1:${port}/test` }))).catch(
      (err: unknown) => (failure = err),
    );
    expect(String(failure)).to.match(/cannot use PostgreSQL table state: .*ECONNREFUSED/);
  });

  it('creates its table in a schema when tableName is schema.table', async () => {
    const schema = `svc_test_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client(TEST_POSTGRES_URL);
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    try {
      const store = await PostgresStateStore.connect(postgresOptionsFromMetadata(metadata({ connectionString: TEST_POSTGRES_URL, tableName: `${schema}.kv` })));
      await store.set({ key: 'k', value: Buffer.from('1') });
      await store.close();
      const rows = await admin.query(`SELECT key, version FROM ${schema}.kv`);
      expect(rows.rows).to.deep.equal([{ key: 'k', version: '1' }]);
    } finally {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  });
});
