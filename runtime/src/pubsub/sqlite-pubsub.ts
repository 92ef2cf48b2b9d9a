/**
 * `pubsub.sqlite`: the embedded durable pub/sub that `svc init` and `make run` write beside the state store, so
 * every building block works on a fresh machine with no broker. Messages are rows of one SQLite file under
 * --data-dir (`databasePath`, default `<component name>.db`), committed before publish answers.
 *
 * - Each consumer group (`consumerID`, by default the app id) reads every message of a topic from the oldest one
 *   kept, and records each one its handler took: at least once, for any number of groups, across restarts and
 *   `kill -9` (what was in flight is offered again, as by the other brokers).
 * - A message whose handler failed (after the subscription's own retries) is offered again after
 *   `redeliverInterval` (default 5s), without holding up the ones behind it.
 * - Publishing wakes the subscriptions of its topic at once (no polling). Messages are kept for `retentionPeriod`
 *   (default 24h), their acknowledgements with them.
 * - Single host, as state.sqlite: while a svcd has the file open it holds `<file>.lock`.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { metadataDuration } from '../components/metadata-duration.js';
import { ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { databasePathFromMetadata, openDatabase } from '../stores/sqlite-database.js';
import { holdDatabaseLock, type DatabaseLock } from '../stores/sqlite-lock.js';
import { HandlerSlots } from './handler-slots.js';
import type { MessageHandler, PublishRequest, PubSub, ReceivedMessage, SubscribeRequest, TopicSubscription } from '../components/contracts/pubsub.js';

const DEFAULT_REDELIVER_MS = 5_000;
const DEFAULT_RETENTION_MS = 24 * 3600_000;
/** Retention is applied this often (and at start). */
const SWEEP_EVERY_MS = 60_000;

interface Row {
  seq: number;
  data: Buffer;
  content_type: string;
  metadata: string;
}

interface Options {
  readonly databasePath: string;
  readonly redeliverMs: number;
  readonly retentionMs: number;
}

export function sqlitePubSubOptions(get: (name: string) => string | undefined, ctx: { componentName: string; dataDir: string }): Options {
  return {
    databasePath: databasePathFromMetadata(get, ctx),
    redeliverMs: metadataDuration(get, 'redeliverInterval', DEFAULT_REDELIVER_MS),
    retentionMs: metadataDuration(get, 'retentionPeriod', DEFAULT_RETENTION_MS),
  };
}

export class SqlitePubSub implements PubSub {
  readonly #published = new EventEmitter().setMaxListeners(0);
  readonly #subscriptions = new Set<GroupReader>();
  readonly #insert: Database.Statement;
  readonly #sweeper: NodeJS.Timeout;

  private constructor(
    private readonly db: Database.Database,
    private readonly lock: DatabaseLock | undefined,
    private readonly opts: Options,
    private readonly log: Logger,
  ) {
    this.#insert = db.prepare('INSERT INTO pubsub_messages (topic, data, content_type, metadata, published_at) VALUES (?, ?, ?, ?, ?)');
    this.#sweep();
    this.#sweeper = setInterval(() => this.#sweep(), Math.min(SWEEP_EVERY_MS, opts.retentionMs)).unref();
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- async so every failure is a rejection
  static async open(opts: Options, log: Logger): Promise<SqlitePubSub> {
    if (opts.databasePath !== ':memory:') mkdirSync(path.dirname(opts.databasePath), { recursive: true });
    let lock: DatabaseLock | undefined;
    let db: Database.Database | undefined;
    try {
      if (opts.databasePath !== ':memory:') lock = holdDatabaseLock(opts.databasePath);
      db = openDatabase(opts.databasePath);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec(`CREATE TABLE IF NOT EXISTS pubsub_messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        topic TEXT NOT NULL,
        data BLOB NOT NULL,
        content_type TEXT NOT NULL,
        metadata TEXT NOT NULL,
        published_at INTEGER NOT NULL
      )`);
      db.exec('CREATE INDEX IF NOT EXISTS pubsub_messages_by_topic ON pubsub_messages (topic, seq)');
      db.exec('CREATE TABLE IF NOT EXISTS pubsub_acks (consumer_group TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (consumer_group, seq)) WITHOUT ROWID');
      return new SqlitePubSub(db, lock, opts, log);
    } catch (err) {
      db?.close();
      lock?.release();
      throw new Error(`cannot open the pub/sub database ${opts.databasePath}: ${ensureError(err).message}`, { cause: err });
    }
  }

  features(): readonly string[] {
    return [];
  }

  publish(req: PublishRequest): Promise<void> {
    this.#insert.run(req.topic, req.data, req.contentType, JSON.stringify(req.metadata), Date.now());
    this.#published.emit(req.topic);
    return Promise.resolve();
  }

  subscribe(req: SubscribeRequest, handler: MessageHandler): Promise<TopicSubscription> {
    const group = req.metadata.consumerID || 'default';
    const reader = new GroupReader(this.db, req.topic, group, new HandlerSlots(Math.max(1, req.maxConcurrency)), handler, this.opts.redeliverMs, this.log);
    const wake = () => reader.wake();
    this.#published.on(req.topic, wake);
    this.#subscriptions.add(reader);
    reader.start();
    return Promise.resolve({
      close: async () => {
        this.#published.off(req.topic, wake);
        this.#subscriptions.delete(reader);
        await reader.close();
      },
    });
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.all([...this.#subscriptions].map((r) => r.close()));
    this.#subscriptions.clear();
    this.db.close();
    this.lock?.release();
  }

  /** Messages past the retention period go, and the acknowledgements of messages no longer kept. */
  #sweep(): void {
    try {
      this.db.prepare('DELETE FROM pubsub_messages WHERE published_at < ?').run(Date.now() - this.opts.retentionMs);
      this.db.exec('DELETE FROM pubsub_acks WHERE seq < (SELECT COALESCE(MIN(seq), 9223372036854775807) FROM pubsub_messages)');
    } catch (err) {
      this.log.warn({ err: ensureError(err).message }, 'removing old pub/sub messages failed');
    }
  }
}

/** One consumer group's reading of one topic: unacknowledged messages in order, at most `slots.limit` in flight. */
class GroupReader {
  readonly #next: Database.Statement;
  readonly #ack: Database.Statement;
  /** Messages at or below this were read (handed out, or acknowledged before). */
  #readUpTo = 0;
  readonly #inFlight = new Set<number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #woken: (() => void) | undefined;
  #published = false;
  #closed = false;
  #loop: Promise<void> | undefined;

  constructor(
    db: Database.Database,
    private readonly topic: string,
    private readonly group: string,
    private readonly slots: HandlerSlots,
    private readonly handler: MessageHandler,
    private readonly redeliverMs: number,
    private readonly log: Logger,
  ) {
    this.#next = db.prepare(
      `SELECT seq, data, content_type, metadata FROM pubsub_messages m WHERE topic = ? AND seq > ?
       AND NOT EXISTS (SELECT 1 FROM pubsub_acks a WHERE a.consumer_group = ? AND a.seq = m.seq) ORDER BY seq LIMIT ?`,
    );
    this.#ack = db.prepare('INSERT OR IGNORE INTO pubsub_acks (consumer_group, seq) VALUES (?, ?)');
  }

  start(): void {
    this.#loop = this.#run();
  }

  /** A message was published to the topic (or one failed and is due again). */
  wake(): void {
    this.#published = true;
    this.#woken?.();
  }

  async #run(): Promise<void> {
    while (!this.#closed) {
      await this.slots.free();
      if (this.#closed) return;
      this.#published = false;
      const rows = (this.#next.all(this.topic, this.#readUpTo, this.group, this.slots.available + this.#inFlight.size) as Row[]).filter((r) => !this.#inFlight.has(r.seq));
      for (const row of rows.slice(0, this.slots.available)) {
        this.#readUpTo = Math.max(this.#readUpTo, row.seq);
        this.#dispatch(row);
      }
      if (rows.length > 0) continue;
      // Nothing to read: sleep until a publish (or a failed message coming due) wakes us.
      if (!this.#published) await new Promise<void>((resolve) => (this.#woken = resolve));
      this.#woken = undefined;
    }
  }

  #dispatch(row: Row): void {
    const msg: ReceivedMessage = { id: String(row.seq), topic: this.topic, data: row.data, contentType: row.content_type, metadata: JSON.parse(row.metadata) as Record<string, string> };
    this.#inFlight.add(row.seq);
    const call = this.handler(msg).then(
      () => {
        try {
          this.#ack.run(this.group, row.seq);
        } catch (err) {
          this.log.warn({ topic: this.topic, seq: row.seq, err: ensureError(err).message }, 'acknowledging failed: the message will be delivered again');
        }
      },
      () => this.#redeliverLater(row.seq),
    );
    this.slots.track(call.finally(() => this.#inFlight.delete(row.seq)));
  }

  /** The next read starts again at this message, once it is due. */
  #redeliverLater(seq: number): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#readUpTo = Math.min(this.#readUpTo, seq - 1);
      this.wake();
    }, this.redeliverMs);
    this.#timers.add(timer);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#woken?.();
    const settled = this.slots.close();
    await this.#loop;
    await settled;
  }
}
