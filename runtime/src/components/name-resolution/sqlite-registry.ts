import type Database from 'better-sqlite3';
import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../stores/sqlite-database.js';
import type { SidecarRecord } from '../contracts/name-resolution.js';
import type { RegistryBackend } from './lease-registry.js';

/**
 * The standalone default: one SQLite file for every sidecar of the host (by default `~/.svc/name-registry.db`),
 * opened by each of them at once (WAL, short busy waits). Readable only by its owner: it holds the shared secret.
 */
export class SqliteRegistry implements RegistryBackend {
  readonly kind = 'sqlite';
  #db: Database.Database | undefined;

  constructor(private readonly file: string) {}

  init(): Promise<void> {
    if (this.#db) return Promise.resolve();
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const db = openDatabase(this.file, { timeout: 5_000 });
    chmodSync(this.file, 0o600);
    db.pragma('journal_mode = WAL');
    // A record is a heartbeat renewed every few seconds: one lost to a power cut costs nothing, so commits skip
    // their fsync (WAL keeps the file consistent). better-sqlite3 is synchronous: each fsync held the event loop,
    // 3–7 ms a renewal here and once 130 ms (svcd's first renewal, at start, in a profile on a busy disk).
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE TABLE IF NOT EXISTS sidecars (namespace TEXT NOT NULL, app_id TEXT NOT NULL, host_id TEXT NOT NULL, address TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (namespace, app_id, host_id));
      CREATE TABLE IF NOT EXISTS shared_secret (id INTEGER PRIMARY KEY CHECK (id = 1), value TEXT NOT NULL);`);
    this.#db = db;
    return Promise.resolve();
  }

  renew(r: SidecarRecord, ttlMs: number): Promise<void> {
    this.#open()
      .prepare('INSERT INTO sidecars VALUES (?, ?, ?, ?, ?) ON CONFLICT (namespace, app_id, host_id) DO UPDATE SET address = excluded.address, expires_at = excluded.expires_at')
      .run(r.namespace, r.appId, r.hostId, r.address, Date.now() + ttlMs);
    // Records of sidecars that died long ago go, so the file stays small.
    this.#open().prepare('DELETE FROM sidecars WHERE expires_at < ?').run(Date.now() - 60_000);
    return Promise.resolve();
  }

  remove(r: SidecarRecord): Promise<void> {
    this.#open().prepare('DELETE FROM sidecars WHERE namespace = ? AND app_id = ? AND host_id = ?').run(r.namespace, r.appId, r.hostId);
    return Promise.resolve();
  }

  live(appId: string, namespace: string): Promise<string[]> {
    const rows = this.#open().prepare('SELECT address FROM sidecars WHERE namespace = ? AND app_id = ? AND expires_at > ? ORDER BY host_id').all(namespace, appId, Date.now()) as { address: string }[];
    return Promise.resolve(rows.map((r) => r.address));
  }

  secret(newSecret: string): Promise<string> {
    const db = this.#open();
    db.prepare('INSERT OR IGNORE INTO shared_secret VALUES (1, ?)').run(newSecret);
    return Promise.resolve((db.prepare('SELECT value FROM shared_secret WHERE id = 1').get() as { value: string }).value);
  }

  close(): Promise<void> {
    this.#db?.close();
    this.#db = undefined;
    return Promise.resolve();
  }

  #open(): Database.Database {
    if (!this.#db) throw new Error('the name registry is not open');
    return this.#db;
  }
}
