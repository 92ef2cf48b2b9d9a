import pg from 'pg';
import { RuntimeError } from '../errors/runtime-error.js';
import { failedFences, placementTables, PostgresPlacementBackend } from './postgres-placement.js';
import { FencedError, type Fence, type MultiHostStore, type PlacementBackend } from './placement-store.js';
import { parsePgConnection } from '../stores/pg-connection.js';
import { inTransaction } from '../stores/pg-transaction.js';
import { quotedCompanionTableName, quotedTableName } from '../stores/sql-identifier.js';
import { prefixUpperBound, type KeyListingStore, type KeyPage, type ListedKey, type TransactionOperation } from '../components/contracts/state-store.js';
import { batchUnconditional, mismatch, type PlannedWrite, type UnconditionalBatch } from './write-plan.js';
import { ExpirySweeper } from './expiry-sweeper.js';
import { VersionedStateStore, type FencedScope, type StoredValue } from './versioned-store.js';

/** Rows per bulk statement: large enough that a 100,000-write turn is a few round trips, small enough to stream. */
const BULK_ROWS = 5000;

export interface PostgresStoreOptions {
  /** Address, credentials and TLS, from `connectionString` (a URL or libpq key=value pairs). */
  readonly connection: pg.ClientConfig;
  /** `table` or `schema.table`. @default 'state' */
  readonly tableName: string;
  /** @default 10 */
  readonly maxConnections: number;
  readonly connectTimeoutMs: number;
}

/** Reads `state.postgresql` metadata: `connectionString` (required), `tableName`, `maxConns`. */
export function postgresOptionsFromMetadata(get: (name: string) => string | undefined): PostgresStoreOptions {
  const connectionString = get('connectionString');
  if (!connectionString) {
    throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', 'metadata connectionString is required (e.g. postgres://user@host:5432/db or host=db user=app dbname=app)');
  }
  const connection = parsePgConnection(connectionString);
  const maxConnections = Number(get('maxConns') || 10);
  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata maxConns '${get('maxConns')}' must be a positive integer`);
  return { connection: connection.client, tableName: get('tableName') || 'state', maxConnections, connectTimeoutMs: connection.connectTimeoutMs ?? 10_000 };
}

/** Our transactions never wait on the client between statements for more than a moment. */
const IDLE_IN_TRANSACTION_MS = 2_000;

type Queryable = Pick<pg.PoolClient, 'query'>;

interface Row {
  key: string;
  value: Buffer;
  version: string;
  expiresAt: string | null;
}

/** Expired rows removed per sweep statement. */
const SWEEP_BATCH = 1000;

/**
 * `state.postgresql`: one row per key. Each write is a single conditional statement (so a concurrent writer is
 * re-checked by PostgreSQL itself); a batch runs those statements in one SQL transaction. Multi-host: the
 * placement tables live beside the state table, and fences are checked in the writes' transaction.
 */
export class PostgresStateStore extends VersionedStateStore implements MultiHostStore, KeyListingStore {
  readonly #placementPartitions: string;
  readonly #backends: PostgresPlacementBackend[] = [];
  readonly #sweeper: ExpirySweeper;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly table: string,
    private readonly opts: PostgresStoreOptions,
  ) {
    super();
    this.#placementPartitions = placementTables(opts.tableName).partitions;
    this.#sweeper = new ExpirySweeper(async () => {
      const res = await this.pool.query(`DELETE FROM ${table} WHERE key IN (SELECT key FROM ${table} WHERE expires_at <= $1 LIMIT ${SWEEP_BATCH})`, [Date.now()]);
      return res.rowCount ?? 0;
    }, SWEEP_BATCH);
  }

  /** Connects, creates the table when missing, and so proves the address and credentials work. */
  static async connect(opts: PostgresStoreOptions): Promise<PostgresStateStore> {
    const table = quotedTableName(opts.tableName, { allowSchema: true });
    const pool = new pg.Pool({
      ...opts.connection,
      max: opts.maxConnections,
      connectionTimeoutMillis: opts.connectTimeoutMs,
      // A replica frozen (SIGSTOP, a long pause) in the middle of a fenced transaction would hold its partition rows'
      // share locks for as long as it is frozen, and no other replica could take the partitions over. PostgreSQL ends
      // such a session; its transaction is rolled back (the turn was not acknowledged anyway).
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    });
    // An idle client losing its connection is dropped by the pool; the next query reconnects or fails with the reason.
    pool.on('error', () => undefined);
    try {
      await inTransaction(pool, async (client) => {
        // Serialises concurrent first starts, which would otherwise race on CREATE TABLE IF NOT EXISTS.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`svc-state-table:${table}`]);
        // Keys in byte order ("C"), so a listing is a range of the primary key whatever the database's collation.
        await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
          key TEXT COLLATE "C" NOT NULL PRIMARY KEY,
          value BYTEA NOT NULL,
          version BIGINT NOT NULL,
          update_time TIMESTAMPTZ NOT NULL DEFAULT now(),
          expires_at BIGINT
        )`);
        // Tables made before values could expire get the column (NULL: never expires) and its index.
        await client.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS expires_at BIGINT`);
        const expiryIndex = quotedCompanionTableName(opts.tableName, 'expires_at').split('.').pop()!;
        await client.query(`CREATE INDEX IF NOT EXISTS ${expiryIndex} ON ${table} (expires_at) WHERE expires_at IS NOT NULL`);
        await ensureByteOrderKeyIndex(client, opts.tableName, table);
      });
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw new Error(`cannot use PostgreSQL table ${opts.tableName}: ${(err as Error).message}`, { cause: err });
    }
    return new PostgresStateStore(pool, table, opts);
  }

  /** Its own short-lived connection: a pool saturated by turns must not read as a server that is down. */
  async pingServer(timeoutMs: number): Promise<void> {
    const client = new pg.Client({ ...this.opts.connection, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
    client.on('error', () => undefined); // the failing call rejects with the reason
    try {
      await client.connect();
      await client.query('SELECT 1');
    } catch (err) {
      throw new Error(`cannot reach PostgreSQL: ${(err as Error).message}`, { cause: err });
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  protected async read(key: string): Promise<StoredValue | undefined> {
    const res = await this.pool.query<Row>(`SELECT value, version, expires_at AS "expiresAt" FROM ${this.table} WHERE key = $1`, [key]);
    return res.rows[0];
  }

  protected async readMany(keys: readonly string[]): Promise<(StoredValue | undefined)[]> {
    const res = await this.pool.query<Row>(`SELECT key, value, version, expires_at AS "expiresAt" FROM ${this.table} WHERE key = ANY($1::text[])`, [keys]);
    const byKey = new Map(res.rows.map((r) => [r.key, r]));
    return keys.map((k) => byKey.get(k));
  }

  protected async applyAtomically(writes: readonly PlannedWrite[], fenced?: FencedScope): Promise<void> {
    if (writes.length === 1 && !fenced) return this.#apply(this.pool, writes[0]!);
    await inTransaction(this.pool, async (client) => {
      if (fenced) {
        const failed = await failedFences(client, this.#placementPartitions, fenced.appId, fenced.fences);
        if (failed.length > 0) throw new FencedError(failed);
      }
      for (const step of await batchUnconditional(writes)) {
        if ('kind' in step) await this.#apply(client, step);
        else await this.#applyBatch(client, step);
      }
    });
  }

  /** Unconditional writes in bulk, a slice of rows per statement (arrays as parameters: no parameter limit). */
  async #applyBatch(db: Queryable, batch: UnconditionalBatch): Promise<void> {
    const t = this.table;
    for (let i = 0; i < batch.sets.length; i += BULK_ROWS) {
      const slice = batch.sets.slice(i, i + BULK_ROWS);
      await db.query(
        `INSERT INTO ${t} (key, value, version, expires_at) SELECT k, v, 1, e FROM unnest($1::text[], $2::bytea[], $3::bigint[]) AS u(k, v, e)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = ${t}.version + 1, update_time = now(), expires_at = excluded.expires_at`,
        [slice.map((s) => s.key), slice.map((s) => s.value), slice.map((s) => s.expiresAt ?? null)],
      );
    }
    for (let i = 0; i < batch.deletes.length; i += BULK_ROWS) {
      await db.query(`DELETE FROM ${t} WHERE key = ANY($1::text[])`, [batch.deletes.slice(i, i + BULK_ROWS)]);
    }
  }

  /** The backend has its own connections (closed by its `close()`, or with this store). */
  placementBackend(appId: string): PlacementBackend {
    const backend = new PostgresPlacementBackend({ connection: this.opts.connection, connectTimeoutMs: this.opts.connectTimeoutMs, tableName: this.opts.tableName }, appId);
    this.#backends.push(backend);
    return backend;
  }

  transactFenced(appId: string, ops: readonly TransactionOperation[], fences: readonly Fence[]): Promise<void> {
    return this.applyFenced(appId, ops, fences);
  }

  /**
   * One conditional write. An expired row is absent to conditions ($now: this write's clock), but its version goes
   * on counting, so an ETag from before it expired stays stale.
   */
  async #apply(db: Queryable, w: PlannedWrite): Promise<void> {
    const t = this.table;
    const c = w.condition;
    const now = Date.now();
    /** The row is live at the write's clock, passed as parameter `param`. */
    const liveAt = (param: string) => `(${t}.expires_at IS NULL OR ${t}.expires_at > ${param})`;
    let res: pg.QueryResult;
    if (w.kind === 'set') {
      const expiresAt = w.expiresAt ?? null;
      if (c.kind === 'version') {
        res = await db.query(
          `UPDATE ${t} SET value = $2, version = version + 1, update_time = now(), expires_at = $4 WHERE key = $1 AND version = $3 AND ${liveAt('$5')}`,
          [w.key, w.value, c.version, expiresAt, now],
        );
      } else {
        const update = `DO UPDATE SET value = excluded.value, version = ${t}.version + 1, update_time = now(), expires_at = excluded.expires_at`;
        // First-write: only over an expired row.
        const onConflict = c.kind === 'absent' ? `${update} WHERE NOT ${liveAt('$4')}` : update;
        res = await db.query(`INSERT INTO ${t} (key, value, version, expires_at) VALUES ($1, $2, 1, $3) ON CONFLICT (key) ${onConflict}`, c.kind === 'absent' ? [w.key, w.value, expiresAt, now] : [w.key, w.value, expiresAt]);
      }
    } else if (c.kind === 'version') {
      res = await db.query(`DELETE FROM ${t} WHERE key = $1 AND version = $2 AND ${liveAt('$3')}`, [w.key, c.version, now]);
    } else {
      res = await db.query(`DELETE FROM ${t} WHERE key = $1`, [w.key]);
    }
    if (res.rowCount === 0 && c.kind !== 'any') throw mismatch(w);
  }

  /** Every key is in a byte-order index (the primary key, or the one `ensureByteOrderKeyIndex` adds): nothing to maintain. */
  declareListedPrefix(_prefix: string): void {}

  async listKeys(prefix: string, page: KeyPage): Promise<ListedKey[]> {
    const res = await this.pool.query<ListedKey>(
      `SELECT key, value FROM ${this.table} WHERE key COLLATE "C" > $1 AND key COLLATE "C" < $2 ORDER BY key COLLATE "C" LIMIT $3`,
      [page.after ?? prefix, prefixUpperBound(prefix), page.limit],
    );
    return res.rows;
  }

  /** Removes the expired rows now (the sweeper does it every minute); resolves with how many. */
  sweepExpired(): Promise<number> {
    return this.#sweeper.sweep();
  }

  async close(): Promise<void> {
    this.#sweeper.stop();
    await Promise.all(this.#backends.map((b) => b.close()));
    await this.pool.end();
  }
}

/**
 * A table created before keys were "C"-collated (by an earlier svcd, or by hand) orders its primary key by the
 * database's collation, which a byte-order range cannot use: such a table gets a second, "C"-collated index on
 * its keys (one more index to update per write; recreate the table with `key TEXT COLLATE "C"` to avoid it).
 */
async function ensureByteOrderKeyIndex(client: Queryable, tableName: string, table: string): Promise<void> {
  const res = await client.query<{ collation: string }>(
    `SELECT coalesce(c.collname, 'default') AS collation FROM pg_attribute a LEFT JOIN pg_collation c ON c.oid = a.attcollation
     WHERE a.attrelid = $1::regclass AND a.attname = 'key'`,
    [table],
  );
  const collation = res.rows[0]?.collation;
  if (collation === 'C' || collation === 'POSIX') return;
  const index = quotedCompanionTableName(tableName, 'key_bytes').split('.').pop()!;
  await client.query(`CREATE INDEX IF NOT EXISTS ${index} ON ${table} (key COLLATE "C")`);
}
