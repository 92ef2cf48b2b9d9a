import type Database from 'better-sqlite3';
import { openDatabase } from './sqlite-database.js';
import { RuntimeError } from '../errors/runtime-error.js';

export interface DatabaseLock {
  release(): void;
}

interface Held {
  readonly db: Database.Database;
  refs: number;
}

/** Locks this process holds, by database file: several components of one svcd may share a file. */
const held = new Map<string, Held>();

/**
 * Holds `<file>.lock` — a tiny SQLite database of its own, opened in exclusive locking mode and written once, so
 * SQLite keeps its exclusive file lock until it is closed — for as long as the store uses `file`. Another process
 * asking for it fails at once (no waiting) with ERR_STATE_STORE_LOCKED. The OS drops the lock when the holder dies,
 * so a restart after `kill -9` gets it straight away. The data file itself stays a normal WAL database that tools
 * (the sqlite3 shell) can read while svcd runs.
 */
export function holdDatabaseLock(file: string): DatabaseLock {
  let h = held.get(file);
  if (!h) {
    h = { db: lockDatabase(file), refs: 0 };
    held.set(file, h);
  }
  h.refs++;
  const entry = h;
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      if (--entry.refs > 0) return;
      held.delete(file);
      entry.db.close();
    },
  };
}

function lockDatabase(file: string): Database.Database {
  const db = openDatabase(`${file}.lock`);
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    // Only the lock its write takes matters, not what it holds: no journal, no fsync.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec('CREATE TABLE IF NOT EXISTS svcd_lock (holder INTEGER); DELETE FROM svcd_lock; INSERT INTO svcd_lock VALUES (1)');
    return db;
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new RuntimeError(
        'ERR_STATE_STORE_LOCKED',
        `SQLite database ${file} is in use by another process (another svcd on the same data?). SQLite is single-host: run one svcd per data directory, or use Redis or PostgreSQL to run several replicas`,
      );
    }
    throw err;
  }
}
