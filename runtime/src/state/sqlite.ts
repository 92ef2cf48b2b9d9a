import type Database from 'better-sqlite3';
import { databasePathFromMetadata, openDatabase } from '../stores/sqlite-database.js';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ensureError, RuntimeError } from '../errors/runtime-error.js';
import { WalCheckpointer } from '../stores/sqlite-checkpointer.js';
import { holdDatabaseLock, type DatabaseLock } from '../stores/sqlite-lock.js';
import { quotedTableName } from '../stores/sql-identifier.js';
import { prefixUpperBound, type KeyListingStore, type KeyPage, type ListedKey } from '../components/contracts/state-store.js';
import { applyInOrder, type PlannedWrite } from './write-plan.js';
import { ExpirySweeper } from './expiry-sweeper.js';
import { VersionedStateStore, type StoredValue } from './versioned-store.js';

const SYNCHRONOUS_MODES = ['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const;
export type SqliteSynchronous = (typeof SYNCHRONOUS_MODES)[number];

export interface SqliteStoreOptions {
  /** Database file, or `:memory:`. */
  readonly databasePath: string;
  /** @default 'state' */
  readonly tableName: string;
  /**
   * @default 'NORMAL' — in WAL mode every committed write survives a crash (kill -9) of the process; only a power
   * loss or OS crash can drop the last commits. `FULL` also survives those, at the price of an fsync per write
   * (which blocks the event loop, since better-sqlite3 is synchronous).
   */
  readonly synchronous: SqliteSynchronous;
  /** How long a write waits for another process holding the database lock. @default 5000 */
  readonly busyTimeoutMs: number;
}

/**
 * Reads `state.sqlite` metadata: `databasePath` (or `connectionString`, a path, relative to the data dir),
 * default `<dataDir>/<componentName>.db`; `tableName`; `synchronous`; `busyTimeout` (ms).
 */
export function sqliteOptionsFromMetadata(get: (name: string) => string | undefined, ctx: { componentName: string; dataDir: string }): SqliteStoreOptions {
  const databasePath = databasePathFromMetadata(get, ctx);
  const synchronous = (get('synchronous') || 'NORMAL').toUpperCase();
  if (!(SYNCHRONOUS_MODES as readonly string[]).includes(synchronous)) {
    throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata synchronous '${synchronous}' must be one of ${SYNCHRONOUS_MODES.join(', ')}`);
  }
  const busy = Number(get('busyTimeout') || 5000);
  if (!Number.isInteger(busy) || busy < 0) throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata busyTimeout '${get('busyTimeout')}' must be milliseconds`);
  return { databasePath, tableName: get('tableName') || 'state', synchronous: synchronous as SqliteSynchronous, busyTimeoutMs: busy };
}

interface Row {
  value: Buffer;
  version: number;
  expiresAt: number | null;
}

/**
 * Writes per slice of a large transaction. better-sqlite3 is synchronous: a 100,000-row transaction in one go
 * held svcd's event loop for seconds (health checks and every other request waited). A batch larger than this is
 * applied in slices of one open transaction, yielding to the event loop between slices (~30 ms each).
 */
const WRITE_SLICE = 1000;

/**
 * `state.sqlite`: the embedded default, one file in WAL mode. Every batch runs in one IMMEDIATE transaction.
 *
 * SQLite is a single-host store: while a svcd has the file open it holds `<file>.lock` (sqlite-lock.ts), so a
 * second svcd on the same data — a second replica, a stray `make run` — is refused instead of sharing it (two actor
 * runtimes on one store would both own every actor).
 */
/** Expired rows removed per sweep statement: a short write, so a sweep never holds the database long. */
const SWEEP_BATCH = 1000;

export class SqliteStateStore extends VersionedStateStore implements KeyListingStore {
  readonly #db: Database.Database;
  /**
   * A second connection for reads (file databases): while a sliced write is open on `#db`, reads on it would see
   * its uncommitted rows; WAL gives this one the last committed snapshot. `:memory:` has one connection only
   * (and applies every batch in one go).
   */
  readonly #reader: Database.Database | undefined;
  /** Writes run one after another: a sliced transaction must not take in another batch's rows. */
  #writing: Promise<void> = Promise.resolve();
  readonly #select: Database.Statement<[string], Row>;
  readonly #version: Database.Statement<[string], { version: number; expiresAt: number | null }>;
  readonly #upsert: Database.Statement<[string, Buffer, number, number, number | null]>;
  readonly #upsertNext: Database.Statement<[string, Buffer, number, number | null]>;
  readonly #sweep: Database.Statement<[number, number]>;
  readonly #sweeper: ExpirySweeper;
  readonly #remove: Database.Statement<[string]>;
  /** A range of the primary key (TEXT, BINARY collation: byte order). */
  readonly #range: Database.Statement<[string, string, number], ListedKey>;
  readonly #apply: Database.Transaction<(writes: readonly PlannedWrite[]) => void>;
  readonly #applySlice: (writes: readonly PlannedWrite[]) => void;

  private constructor(
    db: Database.Database,
    reader: Database.Database | undefined,
    table: string,
    private readonly lock: DatabaseLock | undefined,
    private readonly checkpointer: WalCheckpointer | undefined,
  ) {
    super();
    this.#db = db;
    this.#reader = reader;
    this.#select = (reader ?? db).prepare(`SELECT value, version, expires_at AS expiresAt FROM ${table} WHERE key = ?`);
    this.#version = db.prepare(`SELECT version, expires_at AS expiresAt FROM ${table} WHERE key = ?`);
    this.#upsert = db.prepare(
      `INSERT INTO ${table} (key, value, version, update_time, expires_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = excluded.version, update_time = excluded.update_time, expires_at = excluded.expires_at`,
    );
    // `version + 1` in DO UPDATE is the stored row's version: an unconditional write is one statement, no read.
    this.#upsertNext = db.prepare(
      `INSERT INTO ${table} (key, value, version, update_time, expires_at) VALUES (?, ?, 1, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = version + 1, update_time = excluded.update_time, expires_at = excluded.expires_at`,
    );
    // Through the partial index on expires_at: a sweep reads only the rows that have a TTL.
    this.#sweep = db.prepare(`DELETE FROM ${table} WHERE key IN (SELECT key FROM ${table} WHERE expires_at <= ? LIMIT ?)`);
    this.#sweeper = new ExpirySweeper(() => this.#sweepExpired(), SWEEP_BATCH);
    this.#remove = db.prepare(`DELETE FROM ${table} WHERE key = ?`);
    // On the reader: a listing must not see the rows of a sliced write still open on `#db`.
    this.#range = (reader ?? db).prepare(`SELECT key, value FROM ${table} WHERE key > ? AND key < ? ORDER BY key LIMIT ?`);
    this.#applySlice = (writes: readonly PlannedWrite[]) => {
      const now = Date.now();
      applyInOrder(writes, {
        current: (key) => {
          const row = this.#version.get(key);
          return row && { version: row.version, live: row.expiresAt === null || row.expiresAt > now };
        },
        put: (key, value, version, expiresAt) => void this.#upsert.run(key, value, version, now, expiresAt ?? null),
        putNext: (key, value, expiresAt) => void this.#upsertNext.run(key, value, now, expiresAt ?? null),
        remove: (key) => void this.#remove.run(key),
      });
    };
    this.#apply = db.transaction(this.#applySlice);
  }

  /** Opens (creating when missing) the database file and its table. */
  // eslint-disable-next-line @typescript-eslint/require-await -- async so every failure is a rejection
  static async open(opts: SqliteStoreOptions): Promise<SqliteStateStore> {
    const table = quotedTableName(opts.tableName, { allowSchema: false });
    if (opts.databasePath !== ':memory:') mkdirSync(path.dirname(opts.databasePath), { recursive: true });
    let db: Database.Database | undefined;
    let lock: DatabaseLock | undefined;
    try {
      if (opts.databasePath !== ':memory:') lock = holdDatabaseLock(opts.databasePath);
      db = openDatabase(opts.databasePath);
      db.pragma(`busy_timeout = ${opts.busyTimeoutMs}`);
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${opts.synchronous}`);
      db.exec(`CREATE TABLE IF NOT EXISTS ${table} (
        key TEXT NOT NULL PRIMARY KEY,
        value BLOB NOT NULL,
        version INTEGER NOT NULL,
        update_time INTEGER NOT NULL,
        expires_at INTEGER
      )`);
      // Tables made before values could expire get the column (NULL: never expires) and its index.
      const columns = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
      if (!columns.some((c) => c.name === 'expires_at')) db.exec(`ALTER TABLE ${table} ADD COLUMN expires_at INTEGER`);
      db.exec(`CREATE INDEX IF NOT EXISTS "${opts.tableName}_expires_at" ON ${table} (expires_at) WHERE expires_at IS NOT NULL`);
      const reader = opts.databasePath === ':memory:' ? undefined : openDatabase(opts.databasePath, { readonly: true });
      reader?.pragma(`busy_timeout = ${opts.busyTimeoutMs}`);
      const writer = db;
      const checkpointer = reader ? new WalCheckpointer(opts.databasePath, opts.busyTimeoutMs, () => writer.open && writer.pragma('wal_autocheckpoint = 1000')) : undefined;
      if (checkpointer) db.pragma('wal_autocheckpoint = 0');
      return new SqliteStateStore(db, reader, table, lock, checkpointer);
    } catch (err) {
      db?.close();
      lock?.release();
      if (err instanceof RuntimeError) throw err;
      throw new Error(`cannot open SQLite database ${opts.databasePath}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Removes a batch of expired rows, in turn with the writes (a sliced write holds the connection's transaction). */
  #sweepExpired(): Promise<number> {
    const run = this.#writing.then(() => (this.#db.open ? this.#sweep.run(Date.now(), SWEEP_BATCH).changes : 0));
    this.#writing = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  protected read(key: string): Promise<StoredValue | undefined> {
    return Promise.resolve(this.#select.get(key));
  }

  protected readMany(keys: readonly string[]): Promise<(StoredValue | undefined)[]> {
    // One read transaction, so a bulk get sees a single snapshot.
    return Promise.resolve((this.#reader ?? this.#db).transaction(() => keys.map((k) => this.#select.get(k)))());
  }

  protected applyAtomically(writes: readonly PlannedWrite[]): Promise<void> {
    const run = this.#writing.then(() => this.#applyNow(writes));
    this.#writing = run.catch(() => undefined);
    return run;
  }

  async #applyNow(writes: readonly PlannedWrite[]): Promise<void> {
    await this.#applyAll(writes);
    this.checkpointer?.noteWrites(writes.length);
  }

  async #applyAll(writes: readonly PlannedWrite[]): Promise<void> {
    try {
      if (writes.length <= WRITE_SLICE || !this.#reader) {
        this.#apply.immediate(writes);
        return;
      }
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        for (let i = 0; i < writes.length; i += WRITE_SLICE) {
          if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
          this.#applySlice(writes.slice(i, i + WRITE_SLICE));
        }
        this.#db.exec('COMMIT');
      } catch (err) {
        if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
        throw err;
      }
    } catch (err) {
      throw ensureError(err);
    }
  }

  /** Every key is in the primary-key index: nothing to maintain. */
  declareListedPrefix(_prefix: string): void {}

  listKeys(prefix: string, page: KeyPage): Promise<ListedKey[]> {
    try {
      return Promise.resolve(this.#range.all(page.after ?? prefix, prefixUpperBound(prefix), page.limit));
    } catch (err) {
      return Promise.reject(ensureError(err));
    }
  }

  /** Resolves once the WAL was checkpointed into the database file after this call (file databases). */
  walCheckpointed(): Promise<void> {
    return this.checkpointer?.checkpointed() ?? Promise.resolve();
  }

  /** Removes the expired rows now (the sweeper does it every minute); resolves with how many. */
  sweepExpired(): Promise<number> {
    return this.#sweeper.sweep();
  }

  async close(): Promise<void> {
    this.#sweeper.stop();
    await this.#writing; // a sliced write finishes (or rolls back) before the connection goes
    await this.checkpointer?.close();
    if (this.#db.open) {
      this.#reader?.close();
      this.#db.close();
      this.lock?.release();
    }
  }
}
