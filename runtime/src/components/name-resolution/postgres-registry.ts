import pg from 'pg';
import type { PgConnection } from '../../stores/pg-connection.js';
import { quotedCompanionTableName, quotedTableName } from '../../stores/sql-identifier.js';
import type { SidecarRecord } from '../contracts/name-resolution.js';
import type { RegistryBackend } from './lease-registry.js';

/** The table unless the Configuration names another `registryTable` (sidecars that must meet share it); the secret is in `<table>_secret`. */
export const DEFAULT_POSTGRES_REGISTRY_TABLE = 'svc_name_registry';

/** Name resolution on PostgreSQL: one table of records expiring by the server's clock, one row of shared secret. */
export class PostgresRegistry implements RegistryBackend {
  readonly kind = 'postgresql';
  #pool: pg.Pool | undefined;
  readonly #table: string;
  readonly #secrets: string;

  constructor(
    private readonly connection: PgConnection,
    table = DEFAULT_POSTGRES_REGISTRY_TABLE,
  ) {
    this.#table = quotedTableName(table, { allowSchema: true });
    this.#secrets = quotedCompanionTableName(table, 'secret');
  }

  async init(): Promise<void> {
    if (this.#pool) return;
    const pool = new pg.Pool({ ...this.connection.client, max: 2, connectionTimeoutMillis: this.connection.connectTimeoutMs ?? 5_000 });
    pool.on('error', () => undefined);
    await pool.query(`CREATE TABLE IF NOT EXISTS ${this.#table} (namespace TEXT NOT NULL, app_id TEXT NOT NULL, host_id TEXT NOT NULL, address TEXT NOT NULL, expires_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (namespace, app_id, host_id));
      CREATE TABLE IF NOT EXISTS ${this.#secrets} (id INTEGER PRIMARY KEY CHECK (id = 1), value TEXT NOT NULL)`);
    this.#pool = pool;
  }

  async renew(r: SidecarRecord, ttlMs: number): Promise<void> {
    await this.#open().query(
      `INSERT INTO ${this.#table} VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond')
       ON CONFLICT (namespace, app_id, host_id) DO UPDATE SET address = excluded.address, expires_at = excluded.expires_at`,
      [r.namespace, r.appId, r.hostId, r.address, ttlMs],
    );
    await this.#open().query(`DELETE FROM ${this.#table} WHERE expires_at < now() - interval '1 minute'`);
  }

  async remove(r: SidecarRecord): Promise<void> {
    await this.#open().query(`DELETE FROM ${this.#table} WHERE namespace = $1 AND app_id = $2 AND host_id = $3`, [r.namespace, r.appId, r.hostId]);
  }

  async live(appId: string, namespace: string): Promise<string[]> {
    const res = await this.#open().query<{ address: string }>(`SELECT address FROM ${this.#table} WHERE namespace = $1 AND app_id = $2 AND expires_at > now() ORDER BY host_id`, [namespace, appId]);
    return res.rows.map((r) => r.address);
  }

  async secret(newSecret: string): Promise<string> {
    await this.#open().query(`INSERT INTO ${this.#secrets} VALUES (1, $1) ON CONFLICT (id) DO NOTHING`, [newSecret]);
    return (await this.#open().query<{ value: string }>(`SELECT value FROM ${this.#secrets} WHERE id = 1`)).rows[0]!.value;
  }

  async close(): Promise<void> {
    await this.#pool?.end();
    this.#pool = undefined;
  }

  #open(): pg.Pool {
    if (!this.#pool) throw new Error('the name registry is not connected');
    return this.#pool;
  }
}
