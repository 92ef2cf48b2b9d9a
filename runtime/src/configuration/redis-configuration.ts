/**
 * `configuration.redis`: items are Redis string keys whose value is `<value>||<version>` (the version optional),
 * as Dapr's Redis configuration store reads them. Changes are watched through Redis keyspace notifications
 * (`__keyspace@<db>__:<key>`), which the server must publish: the first watch turns on the classes it needs
 * (`K$gx`: string commands, DEL/RENAME/EXPIRE, expiries) with CONFIG SET, keeping those already on; where CONFIG
 * is refused (managed Redis), the server's own configuration must set `notify-keyspace-events` (docs/configuration-api.md).
 * Each subscription listens on a connection of its own, subscribed again when it drops (`./redis-watch.ts`).
 */
import type { Redis } from 'ioredis';
import type { ConfigurationItem, ConfigurationItems, ConfigurationRequest, ConfigurationStore, ConfigurationWatch } from '../components/contracts/configuration-store.js';
import { ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { closeRedis, connectRedis, type RedisStoreOptions } from '../stores/redis-connection.js';
import { parseItem } from './redis-item.js';
import { RedisWatch } from './redis-watch.js';

/** Keyspace events, key-space channels ('K'), for the classes an item's change shows in. */
const NEEDED_EVENTS = ['K', '$', 'g', 'x'];
const SCAN_BATCH = 500;

export class RedisConfigurationStore implements ConfigurationStore {
  #notificationsChecked = false;

  private constructor(
    private readonly redis: Redis,
    private readonly db: number,
    private readonly log: Logger,
  ) {}

  static async connect(opts: RedisStoreOptions, log: Logger): Promise<RedisConfigurationStore> {
    return new RedisConfigurationStore(await connectRedis(opts), opts.db, log);
  }

  async get(req: ConfigurationRequest): Promise<ConfigurationItems> {
    const items: Record<string, ConfigurationItem> = {};
    const read = async (keys: string[]) => {
      if (keys.length === 0) return;
      // MGET answers nil for a missing key and for a key that is not a string (a hash, a stream): neither is an item.
      const values = await this.redis.mget(...keys);
      keys.forEach((k, i) => {
        const v = values[i];
        if (typeof v === 'string') items[k] = parseItem(v);
      });
    };
    if (req.keys.length > 0) await read([...req.keys]);
    else for await (const keys of this.redis.scanStream({ count: SCAN_BATCH }) as AsyncIterable<string[]>) await read(keys);
    return items;
  }

  async watch(req: ConfigurationRequest, onChange: (items: ConfigurationItems) => void): Promise<ConfigurationWatch> {
    await this.#ensureNotifications();
    return RedisWatch.start({ main: this.redis, db: this.db, keys: req.keys, read: () => this.get(req) }, onChange, this.log);
  }

  /** Adds the notification classes a watch needs to those the server already publishes, once. */
  async #ensureNotifications(): Promise<void> {
    if (this.#notificationsChecked) return;
    try {
      const [, current = ''] = await this.redis.config('GET', 'notify-keyspace-events');
      const covered = (c: string) => current.includes(c) || (c !== 'K' && current.includes('A'));
      const missing = NEEDED_EVENTS.filter((c) => !covered(c));
      if (missing.length > 0) await this.redis.config('SET', 'notify-keyspace-events', current + missing.join(''));
    } catch (err) {
      this.log.warn({ err: ensureError(err).message }, "cannot turn on Redis keyspace notifications (CONFIG refused): set notify-keyspace-events to include 'K$gx' on the server, or changes go unreported");
    }
    this.#notificationsChecked = true;
  }

  async pingServer(): Promise<void> {
    await this.redis.ping();
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }
}
