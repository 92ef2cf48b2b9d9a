/**
 * The worker thread of `WalCheckpointer`: its own connection to the database, checkpointing on request. PASSIVE
 * never waits for the writer or readers; what it cannot copy now it copies next time.
 */
import { openDatabase } from './sqlite-database.js';
import { parentPort, workerData } from 'node:worker_threads';

const { databasePath, busyTimeoutMs } = workerData as { databasePath: string; busyTimeoutMs: number };
const db = openDatabase(databasePath);
db.pragma(`busy_timeout = ${busyTimeoutMs}`);

parentPort?.on('message', () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort?.postMessage({ ok: true });
  } catch (err) {
    parentPort?.postMessage({ ok: false, error: (err as Error).message });
  }
});
