/**
 * `configuration.postgresql`: items are rows of Dapr's configuration table (`key`, `value`, `version`, `metadata`
 * JSON), read with `SELECT`. Changes come from LISTEN on the channel the subscribe request names in its
 * `pgNotifyChannel` metadata, to which a trigger on the table sends `{"action", "data": <the row>}` (Dapr's
 * trigger; docs/configuration-api.md shows how to install it), each subscription on a connection of its own that
 * is re-established when it drops (`./postgres-watch.ts`). svcd creates neither the table nor the trigger: they
 * belong to whoever writes the configuration.
 */
import pg from 'pg';
import type { ConfigurationItems, ConfigurationRequest, ConfigurationStore, ConfigurationWatch } from '../components/contracts/configuration-store.js';
import { RuntimeError, ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { parsePgConnection } from '../stores/pg-connection.js';
import { selectItems } from './postgres-items.js';
import { PostgresWatch } from './postgres-watch.js';

/** Table and channel names go into SQL text (they cannot be parameters): plain identifiers only. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;

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

  get(req: ConfigurationRequest): Promise<ConfigurationItems> {
    return selectItems(this.pool, this.opts.table, req.keys);
  }

  async watch(req: ConfigurationRequest, onChange: (items: ConfigurationItems) => void): Promise<ConfigurationWatch> {
    const channel = Object.entries(req.metadata).find(([k]) => k.toLowerCase() === 'pgnotifychannel')?.[1];
    if (!channel || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(channel)) {
      throw new RuntimeError('ERR_MALFORMED_REQUEST', `subscribing to ${this.opts.table} needs the metadata pgNotifyChannel: the channel its trigger notifies (an identifier)`);
    }
    const { connection, connectTimeoutMs, table } = this.opts;
    return PostgresWatch.start({ connection, connectTimeoutMs, table, channel, keys: req.keys }, onChange, this.log);
  }

  async pingServer(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
