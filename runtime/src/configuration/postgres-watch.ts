/**
 * One `configuration.postgresql` subscription: LISTEN on the channel the table's trigger notifies, over a
 * connection of its own, reporting each notified row of a watched key. When that connection drops (a server
 * restart, a terminated backend, a reset connection) it reconnects with capped backoff, LISTENs again, and re-reads the
 * watched keys on the new connection, reporting what changed while it was down (`./known-items.ts`): such a change
 * arrives late, never silently lost.
 */
import pg from 'pg';
import type { ConfigurationItem, ConfigurationItems, ConfigurationWatch } from '../components/contracts/configuration-store.js';
import { ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { KnownItems } from './known-items.js';
import { parseNotification, selectItems } from './postgres-items.js';

/** Reconnects are tried this long after a loss, doubling per failure up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 10_000;

export interface PostgresWatchOptions {
  readonly connection: pg.ClientConfig;
  readonly connectTimeoutMs: number;
  /** Checked identifiers (they go into SQL text). */
  readonly table: string;
  readonly channel: string;
  /** None: every key. */
  readonly keys: readonly string[];
}

type Change = { key: string; item: ConfigurationItem };

export class PostgresWatch implements ConfigurationWatch {
  readonly #wanted: ReadonlySet<string>;
  readonly #known = new KnownItems();
  #client: pg.Client | undefined;
  /** Set while the keys are read on a new connection: the notifications that came meanwhile, reported after it. */
  #held: Change[] | undefined;
  #retryMs = RETRY_FIRST_MS;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(
    private readonly opts: PostgresWatchOptions,
    private readonly onChange: (items: ConfigurationItems) => void,
    private readonly log: Logger,
  ) {
    this.#wanted = new Set(opts.keys);
  }

  /** Resolves once LISTEN is in place (a change committed after that is reported); rejects if it cannot be. */
  static async start(opts: PostgresWatchOptions, onChange: (items: ConfigurationItems) => void, log: Logger): Promise<PostgresWatch> {
    const watch = new PostgresWatch(opts, onChange, log);
    await watch.#listen(true);
    return watch;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  /**
   * Connects, LISTENs, then reads the watched keys on the same connection: a notification the server sends during
   * that read may be of a commit the read does not see yet, so it is held and reported after the read's changes.
   */
  async #listen(first: boolean): Promise<void> {
    const client = new pg.Client({ ...this.opts.connection, connectionTimeoutMillis: this.opts.connectTimeoutMs });
    client.on('error', (err) => this.#lost(client, err));
    client.on('end', () => this.#lost(client));
    client.on('notification', (n) => this.#notified(n.payload));
    let changed: ConfigurationItems;
    let held: Change[];
    try {
      await client.connect();
      await client.query(`LISTEN ${this.opts.channel}`);
      this.#held = [];
      const fresh = await selectItems(client, this.opts.table, this.opts.keys);
      changed = this.#known.changedIn(fresh);
      held = this.#held;
    } catch (err) {
      // What was held is not lost: it is not known either, so the next connection's read reports it.
      this.#held = undefined;
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
      throw err;
    }
    this.#held = undefined;
    if (this.#closed) return void (await client.end().catch(() => undefined));
    this.#client = client;
    // The first read is what the subscriber starts from, not a change. Logged before the changes are reported, so a
    // reader of the log sees the reconnect before any change it brought.
    if (!first) this.log.info({ channel: this.opts.channel }, 'configuration LISTEN connection re-established');
    if (!first && Object.keys(changed).length > 0) this.onChange(changed);
    for (const change of held) this.#report(change);
  }

  #notified(payload: string | undefined): void {
    const change = parseNotification(payload);
    if (!change) return this.log.warn({ channel: this.opts.channel, payload: payload?.slice(0, 200) }, 'ignored a configuration notification that is not {"action", "data": row}');
    if (this.#wanted.size > 0 && !this.#wanted.has(change.key)) return;
    if (this.#held) this.#held.push(change);
    else this.#report(change);
  }

  #report({ key, item }: Change): void {
    const items = { [key]: item };
    this.#known.told(items);
    this.onChange(items);
  }

  /** The connection in use ended (an error comes first, then the end: only the first counts). */
  #lost(client: pg.Client, err?: Error): void {
    if (this.#closed || client !== this.#client) return;
    this.#client = undefined;
    this.log.warn({ channel: this.opts.channel, err: err?.message }, 'configuration LISTEN connection lost: reconnecting; changes made meanwhile are reported once it is back');
    this.#retry();
  }

  #retry(): void {
    this.#timer = setTimeout(() => {
      this.#listen(false).then(
        () => {
          this.#timer = undefined;
          this.#retryMs = RETRY_FIRST_MS;
        },
        (err: unknown) => {
          this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
          if (this.#closed) return;
          this.log.warn({ channel: this.opts.channel, err: ensureError(err).message, retryInMs: this.#retryMs }, 'cannot re-establish the configuration LISTEN connection');
          this.#retry();
        },
      );
    }, this.#retryMs);
    this.#timer.unref();
  }
}
