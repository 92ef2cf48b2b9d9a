/**
 * `configuration.postgresql`: items are rows of Dapr's configuration table (`key`, `value`, `version`, `metadata`
 * JSON), read with `SELECT`. Changes come from LISTEN on the channel the subscribe request names in its
 * `pgNotifyChannel` metadata, to which a trigger on the table sends `{"action", "data": <the row>}` (Dapr's
 * trigger; docs/configuration-api.md shows how to install it). svcd creates neither the table nor the trigger: they
 * belong to whoever writes the configuration.
 */
import pg from 'pg';
import { DELETED_ITEM, type ConfigurationItem, type ConfigurationItems, type ConfigurationRequest, type ConfigurationStore, type ConfigurationWatch } from '../components/contracts/configuration-store.js';
import { RuntimeError, ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { parsePgConnection } from '../stores/pg-connection.js';

/** Table and channel names go into SQL text (they cannot be parameters): plain identifiers only. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;

interface Row {
  key: string;
  value: string | null;
  version: string | null;
  metadata: unknown;
}

export interface PostgresConfigurationOptions {
  readonly connection: pg.ClientConfig;
  /** Unquoted, as Dapr uses it: PostgreSQL folds it to lower case. */
  readonly table: string;
  readonly connectTimeoutMs: number;
}

/** `connectionString` and `table` (Dapr's names), both required. */
export function postgresConfigurationOptions(get: (name: string) => string | undefined): PostgresConfigurationOptions {
  const connectionString = get('connectionString');
  const table = get('table');
  if (!connectionString) throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', 'metadata connectionString is required (e.g. postgres://user@host:5432/db)');
  if (!table || !IDENTIFIER.test(table)) throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata table '${table ?? ''}' is required: an identifier or schema.identifier (letters, digits, '_')`);
  const connection = parsePgConnection(connectionString);
  return { connection: connection.client, table, connectTimeoutMs: connection.connectTimeoutMs ?? 10_000 };
}

/** The metadata column's JSON object, its values as strings. */
function itemOf(row: Pick<Row, 'value' | 'version' | 'metadata'>): ConfigurationItem {
  const raw = row.metadata !== null && typeof row.metadata === 'object' ? (row.metadata as Record<string, unknown>) : {};
  const metadata = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  return { value: row.value ?? '', version: row.version ?? '', metadata };
}

export class PostgresConfigurationStore implements ConfigurationStore {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly opts: PostgresConfigurationOptions,
    private readonly log: Logger,
  ) {}

  /** Connects and reads the table once, so a wrong address or a missing table fails the component's init. */
  static async connect(opts: PostgresConfigurationOptions, log: Logger): Promise<PostgresConfigurationStore> {
    const pool = new pg.Pool({ ...opts.connection, max: 4, connectionTimeoutMillis: opts.connectTimeoutMs });
    pool.on('error', () => undefined); // an idle client's lost connection: the next query reconnects or says why
    try {
      await pool.query(`SELECT key, value, version, metadata FROM ${opts.table} LIMIT 0`);
    } catch (err) {
      await pool.end();
      throw new Error(`cannot read configuration table ${opts.table}: ${ensureError(err).message}`, { cause: err });
    }
    return new PostgresConfigurationStore(pool, opts, log);
  }

  async get(req: ConfigurationRequest): Promise<ConfigurationItems> {
    const sql = `SELECT key, value, version, metadata FROM ${this.opts.table}`;
    const { rows } = req.keys.length === 0 ? await this.pool.query<Row>(sql) : await this.pool.query<Row>(`${sql} WHERE key = ANY($1)`, [req.keys]);
    return Object.fromEntries(rows.map((r) => [r.key, itemOf(r)]));
  }

  async watch(req: ConfigurationRequest, onChange: (items: ConfigurationItems) => void): Promise<ConfigurationWatch> {
    const channel = Object.entries(req.metadata).find(([k]) => k.toLowerCase() === 'pgnotifychannel')?.[1];
    if (!channel || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(channel)) {
      throw new RuntimeError('ERR_MALFORMED_REQUEST', `subscribing to ${this.opts.table} needs the metadata pgNotifyChannel: the channel its trigger notifies (an identifier)`);
    }
    const wanted = new Set(req.keys);
    const client = new pg.Client({ ...this.opts.connection, connectionTimeoutMillis: this.opts.connectTimeoutMs });
    client.on('error', (err) => this.log.warn({ channel, err: err.message }, 'configuration LISTEN connection lost: changes go unreported until the subscription is renewed'));
    client.on('notification', (n) => {
      const change = parseNotification(n.payload);
      if (!change) return this.log.warn({ channel, payload: n.payload?.slice(0, 200) }, 'ignored a configuration notification that is not {"action", "data": row}');
      if (wanted.size === 0 || wanted.has(change.key)) onChange({ [change.key]: change.item });
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    return { close: () => client.end().catch(() => undefined) };
  }

  async pingServer(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** The trigger's `{"action": "INSERT"|"UPDATE"|"DELETE", "data": row}`; a deleted row is reported empty. */
function parseNotification(payload: string | undefined): { key: string; item: ConfigurationItem } | undefined {
  try {
    const n = JSON.parse(payload ?? '') as { action?: unknown; data?: Partial<Row> & Record<string, unknown> };
    const data = n.data;
    if (!data || typeof data.key !== 'string') return undefined;
    const item = n.action === 'DELETE' ? DELETED_ITEM : itemOf({ value: data.value ?? null, version: data.version ?? null, metadata: data.metadata ?? null });
    return { key: data.key, item };
  } catch {
    return undefined;
  }
}
