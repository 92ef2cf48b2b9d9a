/**
 * The placement tables of one app on PostgreSQL, in the database (and schema) of the state table, shared by every
 * app through `app_id`. Each method is one statement or one transaction; lease time is the server's `now()`.
 * Changes are announced with NOTIFY on a channel derived from the table and the app.
 *
 * Its own small pool keeps heartbeats on time when turns saturate the state store's pool (a late heartbeat would
 * lose the lease), and one more client LISTENs, reconnecting when its connection drops.
 */
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { inTransaction } from '../stores/pg-transaction.js';
import { quotedCompanionTableName } from '../stores/sql-identifier.js';
import { ChangeListeners } from './change-listeners.js';
import { OWNERSHIP_PARTITIONS, type Fence, type HostLease, type HostRecord, type PartitionOwner, type PlacementBackend, type PlacementView } from './placement-store.js';

export interface PostgresPlacementOptions {
  readonly connection: pg.ClientConfig;
  readonly connectTimeoutMs: number;
  /** The state table's name as configured (`table` or `schema.table`); the placement tables are named after it. */
  readonly tableName: string;
}

/** Quoted names of the placement tables that belong to a state table. */
export interface PlacementTables {
  readonly hosts: string;
  readonly partitions: string;
  readonly tokens: string;
}

export function placementTables(stateTableName: string): PlacementTables {
  return {
    hosts: quotedCompanionTableName(stateTableName, 'placement_hosts'),
    partitions: quotedCompanionTableName(stateTableName, 'placement_partitions'),
    tokens: quotedCompanionTableName(stateTableName, 'placement_tokens'),
  };
}

/** A NOTIFY channel per table and app, a plain identifier well under PostgreSQL's 63 characters. */
export function placementChannel(stateTableName: string, appId: string): string {
  return `svc_placement_${createHash('sha1').update(`${stateTableName}\u0000${appId}`).digest('hex')}`;
}

const CLAIM_LOCK_TIMEOUT_MS = 1_000;

/** Heartbeats, claims and NOTIFY are single short statements: two connections never wait on each other for long. */
const POOL_SIZE = 2;
/** Dead hosts' rows are deleted this long after their lease expired (a new one is written at every start). */
const PRUNE_AFTER = "interval '1 minute'";
const RELISTEN_DELAY_MS = 1000;

interface PartitionRow {
  partition: number;
  owner: string | null;
  /** BIGINT arrives as a string. */
  epoch: string;
}

export class PostgresPlacementBackend implements PlacementBackend {
  readonly kind = 'postgresql';
  readonly #opts: PostgresPlacementOptions;
  readonly #appId: string;
  readonly #tables: PlacementTables;
  readonly #channel: string;
  readonly #pool: pg.Pool;
  readonly #listeners = new ChangeListeners(() => this.#listen());
  #listener: pg.Client | undefined;
  #relisten: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(opts: PostgresPlacementOptions, appId: string) {
    this.#opts = opts;
    this.#appId = appId;
    this.#tables = placementTables(opts.tableName);
    this.#channel = placementChannel(opts.tableName, appId);
    // lock_timeout: a claim waits for in-flight turns on its rows, but never so long that the heartbeat stalls; it is
    // retried at the next one.
    this.#pool = new pg.Pool({ ...opts.connection, max: POOL_SIZE, connectionTimeoutMillis: opts.connectTimeoutMs, lock_timeout: CLAIM_LOCK_TIMEOUT_MS, idle_in_transaction_session_timeout: 2_000 });
    this.#pool.on('error', () => undefined); // an idle client that lost its connection is dropped; the next query reconnects
  }

  async init(): Promise<{ token: string }> {
    const { hosts, partitions, tokens } = this.#tables;
    return inTransaction(this.#pool, async (client) => {
      // Serialises concurrent first starts: CREATE TABLE IF NOT EXISTS races, and the token must be written once.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`svc-placement-tables:${partitions}`]);
      await client.query(`CREATE TABLE IF NOT EXISTS ${hosts} (
        app_id TEXT NOT NULL,
        host_id TEXT NOT NULL,
        address TEXT NOT NULL,
        record TEXT NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (app_id, host_id)
      )`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${partitions} (
        app_id TEXT NOT NULL,
        partition INTEGER NOT NULL,
        owner TEXT,
        epoch BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (app_id, partition)
      )`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${tokens} (app_id TEXT NOT NULL PRIMARY KEY, token TEXT NOT NULL)`);
      // Every partition has its row from the start, so a claim is a plain conditional UPDATE.
      await client.query(`INSERT INTO ${partitions} (app_id, partition) SELECT $1, generate_series(0, $2::int - 1) ON CONFLICT DO NOTHING`, [
        this.#appId,
        OWNERSHIP_PARTITIONS,
      ]);
      await client.query(`INSERT INTO ${tokens} (app_id, token) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [this.#appId, randomBytes(32).toString('base64url')]);
      const res = await client.query<{ token: string }>(`SELECT token FROM ${tokens} WHERE app_id = $1`, [this.#appId]);
      return { token: res.rows[0]!.token };
    });
  }

  /**
   * One statement: upsert the lease, delete long-dead hosts (skipping rows another heartbeat holds, so two never
   * wait on each other), read live hosts and every partition. The main query cannot see the upsert (one snapshot
   * for the whole statement), so the caller's own row comes from RETURNING.
   */
  async heartbeat(host: HostRecord, ttlMs: number): Promise<PlacementView> {
    const { hosts, partitions } = this.#tables;
    const res = await this.#pool.query<{ hosts: [string, number][]; partitions: [number, string | null, number][] }>(
      `WITH lease AS (
        INSERT INTO ${hosts} (app_id, host_id, address, record, expires_at) VALUES ($1, $2, $3, $4, now() + $5::int * interval '1 millisecond')
        ON CONFLICT (app_id, host_id) DO UPDATE SET address = excluded.address, record = excluded.record, expires_at = excluded.expires_at
        RETURNING record, expires_at
      ), pruned AS (
        DELETE FROM ${hosts} WHERE app_id = $1 AND host_id IN (
          SELECT host_id FROM ${hosts} WHERE app_id = $1 AND host_id <> $2 AND expires_at < now() - ${PRUNE_AFTER} FOR UPDATE SKIP LOCKED
        )
      ), live AS (
        SELECT record, expires_at FROM ${hosts} WHERE app_id = $1 AND host_id <> $2 AND expires_at > now()
        UNION ALL SELECT record, expires_at FROM lease
      )
      SELECT
        (SELECT coalesce(json_agg(json_build_array(record, greatest(0, floor(extract(epoch FROM expires_at - now()) * 1000)))), '[]') FROM live) AS hosts,
        (SELECT coalesce(json_agg(json_build_array(partition, owner, epoch) ORDER BY partition), '[]') FROM ${partitions} WHERE app_id = $1) AS partitions`,
      [this.#appId, host.hostId, host.address, JSON.stringify(host), Math.ceil(ttlMs)],
    );
    const row = res.rows[0]!;
    const leases: HostLease[] = row.hosts.map(([record, ms]) => ({ ...(JSON.parse(record) as HostRecord), expiresInMs: Number(ms) }));
    const owners = new Map(row.partitions.map(([partition, owner, epoch]) => [partition, { partition, owner, epoch: Number(epoch) }]));
    return { hosts: leases, partitions: Array.from({ length: OWNERSHIP_PARTITIONS }, (_, p) => owners.get(p) ?? { partition: p, owner: null, epoch: 0 }) };
  }

  /**
   * One UPDATE. Rows are locked in partition order (as fenced turns lock them), so a claim of several partitions
   * and a turn fencing several cannot deadlock; a claim waits for every in-flight turn holding its rows.
   */
  async claim(host: Pick<HostRecord, 'hostId' | 'address'>, partitions: readonly number[]): Promise<PartitionOwner[]> {
    if (partitions.length === 0) return [];
    const t = this.#tables;
    const res = await this.#pool.query<PartitionRow>(
      `WITH wanted AS (
        SELECT partition FROM ${t.partitions} WHERE app_id = $1 AND partition = ANY($4::int[]) ORDER BY partition FOR UPDATE
      )
      UPDATE ${t.partitions} AS p SET owner = $2, epoch = p.epoch + 1
      FROM wanted
      WHERE p.app_id = $1 AND p.partition = wanted.partition
        AND NOT EXISTS (SELECT 1 FROM ${t.hosts} h WHERE h.app_id = $1 AND h.host_id = p.owner AND h.expires_at > now() AND h.address <> $3)
      RETURNING p.partition, p.owner, p.epoch`,
      [this.#appId, host.hostId, host.address, partitions],
    );
    return res.rows.map(toPartitionOwner).sort((a, b) => a.partition - b.partition);
  }

  async release(fences: readonly Fence[]): Promise<void> {
    if (fences.length === 0) return;
    await this.#pool.query(
      `UPDATE ${this.#tables.partitions} AS p SET owner = NULL
      FROM unnest($2::int[], $3::text[], $4::bigint[]) AS f(partition, owner, epoch)
      WHERE p.app_id = $1 AND p.partition = f.partition AND p.owner = f.owner AND p.epoch = f.epoch`,
      [this.#appId, fences.map((f) => f.partition), fences.map((f) => f.owner), fences.map((f) => f.epoch)],
    );
  }

  async leave(hostId: string): Promise<void> {
    await this.#pool.query(`DELETE FROM ${this.#tables.hosts} WHERE app_id = $1 AND host_id = $2`, [this.#appId, hostId]);
  }

  async publish(): Promise<void> {
    await this.#pool.query('SELECT pg_notify($1, $2)', [this.#channel, '']);
  }

  async subscribe(onChange: () => void): Promise<void> {
    await this.#listeners.add(onChange);
  }

  /** Connects the LISTEN client; when its connection ends it reconnects, then reports one change (some were missed). */
  async #listen(): Promise<void> {
    const client = new pg.Client({ ...this.#opts.connection, connectionTimeoutMillis: this.#opts.connectTimeoutMs });
    this.#listener = client;
    client.on('notification', () => this.#listeners.notify());
    client.on('error', () => undefined); // 'end' follows
    client.on('end', () => {
      if (this.#listener === client && !this.#closed) this.#scheduleRelisten();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.#channel}`);
    } catch (err) {
      this.#listener = undefined;
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  #scheduleRelisten(): void {
    this.#relisten = setTimeout(() => {
      this.#relisten = undefined;
      if (this.#closed) return;
      this.#listen().then(
        () => this.#listeners.notify(),
        () => this.#scheduleRelisten(),
      );
    }, RELISTEN_DELAY_MS);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#relisten);
    const listener = this.#listener;
    this.#listener = undefined;
    await Promise.all([listener?.end().catch(() => undefined), this.#pool.end()]);
  }
}

function toPartitionOwner(row: PartitionRow): PartitionOwner {
  return { partition: row.partition, owner: row.owner, epoch: Number(row.epoch) };
}

/**
 * Inside a state transaction, before its writes: locks the fenced partition rows FOR SHARE and returns the
 * partitions whose owner or epoch differ. The share lock is what makes fencing hold: a claim (UPDATE) of those
 * rows waits until this transaction ends, so a new owner never reads state before this turn's commit lands.
 */
export async function failedFences(client: pg.PoolClient, partitionsTable: string, appId: string, fences: readonly Fence[]): Promise<number[]> {
  const res = await client.query<PartitionRow>(
    `SELECT partition, owner, epoch FROM ${partitionsTable} WHERE app_id = $1 AND partition = ANY($2::int[]) ORDER BY partition FOR SHARE`,
    [appId, fences.map((f) => f.partition)],
  );
  const current = new Map(res.rows.map((row) => [row.partition, toPartitionOwner(row)]));
  return fences
    .filter((f) => {
      const now = current.get(f.partition);
      return now?.owner !== f.owner || now.epoch !== f.epoch;
    })
    .map((f) => f.partition);
}
