/**
 * One `configuration.redis` subscription: the keyspace notifications of the watched keys (or of every key) on a
 * pub/sub connection of its own. A notified key is read on the store's main connection, whose answers come back in
 * the order asked, so changes are reported in order. When the pub/sub connection drops (a server restart, a killed
 * client, a reset connection) it reconnects (`../stores/redis-connection.ts`), subscribes again and then re-reads the
 * watched keys on the main connection, reporting what changed while it was down (`./known-items.ts`); a read that
 * fails is tried again with capped backoff. Such a change arrives late, never silently lost.
 */
import type { Redis } from 'ioredis';
import { DELETED_ITEM, type ConfigurationItems, type ConfigurationWatch } from '../components/contracts/configuration-store.js';
import { ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { closeRedis, duplicateRedis } from '../stores/redis-connection.js';
import { KnownItems } from './known-items.js';
import { parseItem } from './redis-item.js';

/** A failed re-read is tried again this long after, doubling per failure up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 10_000;

export interface RedisWatchOptions {
  /** The store's connection: every read goes through it, in order. */
  readonly main: Redis;
  readonly db: number;
  /** None: every key. */
  readonly keys: readonly string[];
  /** Reads the watched keys on `main`: those that exist. */
  readonly read: () => Promise<ConfigurationItems>;
}

export class RedisWatch implements ConfigurationWatch {
  readonly #known = new KnownItems();
  readonly #prefix: string;
  readonly #subscriber: Redis;
  /**
   * Set while the watched keys are read: the keys notified meanwhile, read after it. Read at once, a key's newer
   * value could be reported before the older one of the read in flight, which would then undo it.
   */
  #held: Set<string> | undefined;
  /** A re-read was asked for while one was in flight (the connection dropped again): it runs after. */
  #again = false;
  #retryMs = RETRY_FIRST_MS;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(
    private readonly opts: RedisWatchOptions,
    private readonly onChange: (items: ConfigurationItems) => void,
    private readonly log: Logger,
  ) {
    this.#prefix = `__keyspace@${opts.db}__:`;
    // Subscribing again is this watch's work: it must know when that is done, to re-read only after it.
    this.#subscriber = duplicateRedis(opts.main, { autoResubscribe: false });
    this.#subscriber.on('message', (channel: string) => this.#notified(channel));
    this.#subscriber.on('pmessage', (_pattern: string, channel: string) => this.#notified(channel));
  }

  /** Resolves once subscribed (a change made after that is reported), knowing the items the subscriber starts from. */
  static async start(opts: RedisWatchOptions, onChange: (items: ConfigurationItems) => void, log: Logger): Promise<RedisWatch> {
    const watch = new RedisWatch(opts, onChange, log);
    try {
      await watch.#subscribe();
      // What the subscriber starts from, not a change.
      await watch.#readKeys(() => undefined);
    } catch (err) {
      watch.#subscriber.disconnect();
      throw err;
    }
    // ioredis reports a 'close' per failed reconnect too: the loss is logged once, until the next 'ready'.
    let connected = true;
    watch.#subscriber.on('close', () => {
      if (!connected || watch.#closed) return;
      connected = false;
      log.warn({ keys: opts.keys.length }, 'configuration subscription connection lost: reconnecting; changes made meanwhile are reported once it is back');
    });
    watch.#subscriber.on('ready', () => {
      connected = true;
      watch.#resubscribe();
    });
    return watch;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await closeRedis(this.#subscriber);
  }

  #subscribe(): Promise<unknown> {
    const { keys } = this.opts;
    return keys.length === 0 ? this.#subscriber.psubscribe(`${this.#prefix}*`) : this.#subscriber.subscribe(...keys.map((k) => this.#prefix + k));
  }

  /** A new connection (after a loss): subscribed again, then the keys are re-read. */
  #resubscribe(): void {
    this.log.info({ keys: this.opts.keys.length }, 'configuration subscription connection re-established: subscribing again and reporting what changed meanwhile');
    this.#subscribe().then(
      () => this.#resync(),
      // The connection dropped again: its next 'ready' subscribes.
      (err: unknown) => this.log.warn({ err: ensureError(err).message }, 'cannot subscribe to configuration changes again'),
    );
  }

  #notified(channel: string): void {
    const key = channel.slice(this.#prefix.length);
    if (this.#held) this.#held.add(key);
    else this.#readChanged(key);
  }

  #readChanged(key: string): void {
    this.opts.main.get(key).then(
      (v) => this.#report({ [key]: v === null ? DELETED_ITEM : parseItem(v) }),
      (err: unknown) => {
        this.log.warn({ key, err: ensureError(err).message }, 'cannot read a changed configuration item: the watched keys are read again');
        this.#resyncLater();
      },
    );
  }

  #report(items: ConfigurationItems): void {
    if (this.#closed) return;
    this.#known.told(items);
    this.onChange(items);
  }

  /** Reads the watched keys and hands what the subscriber does not know to `changed`; the keys held meanwhile after. */
  async #readKeys(changed: (items: ConfigurationItems) => void): Promise<void> {
    this.#held = new Set();
    let fresh: ConfigurationItems;
    try {
      fresh = await this.opts.read();
    } catch (err) {
      // The keys held are read with every watched key on the next try.
      this.#held = undefined;
      throw err;
    }
    const held = this.#held;
    this.#held = undefined;
    changed(this.#known.changedIn(fresh));
    for (const key of held) this.#readChanged(key);
  }

  /** Reads the watched keys again, reporting what changed; once more after the read in flight if there is one. */
  #resync(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#held) return void (this.#again = true);
    this.#readKeys((items) => {
      if (!this.#closed && Object.keys(items).length > 0) this.onChange(items);
    }).then(
      () => {
        this.#retryMs = RETRY_FIRST_MS;
        if (this.#again) {
          this.#again = false;
          this.#resync();
        }
      },
      (err: unknown) => {
        this.#again = false;
        this.log.warn({ err: ensureError(err).message, retryInMs: this.#retryMs }, 'cannot read the watched configuration items again');
        this.#resyncLater();
      },
    );
  }

  #resyncLater(): void {
    if (this.#closed || this.#timer) return;
    this.#timer = setTimeout(() => this.#resync(), this.#retryMs);
    this.#timer.unref();
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
  }
}
