/**
 * WAL checkpoints of `state.sqlite` on a worker thread. SQLite checkpoints automatically inside the commit that
 * crosses 1,000 WAL pages, on the caller's thread: the commits after a 100,000-activity fan-out's turns copied
 * tens of MB into the database file on svcd's event loop (150–200 ms each, with nothing else answered). With a
 * checkpointer the writer's automatic checkpoint is off and a worker thread with its own connection checkpoints
 * once enough was written since the last one. If the worker fails, the writer's automatic checkpoint comes back.
 * The worker starts with the first checkpoint: a thread is a V8 isolate of its own (about 10 MB and 100 ms of CPU),
 * which an svcd that has written little, or is starting, should not pay for.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Found by package name, so svcd's bundle (one file elsewhere in dist/) starts the same worker. */
const WORKER_FILE = createRequire(import.meta.url).resolve('@svc/runtime/stores/sqlite-checkpoint-worker.js');

/** Rows written before a checkpoint is asked for (about the size SQLite's own 1,000-page threshold holds). */
const ROWS_PER_CHECKPOINT = 1000;

export class WalCheckpointer {
  #worker: Worker | undefined;
  #written = 0;
  #running = false;
  #failed = false;
  /** Waiting for the next run to start (`checkpointed`), and waiting for the run in progress to end. */
  #forNextRun: (() => void)[] = [];
  #forThisRun: (() => void)[] = [];

  constructor(
    private readonly databasePath: string,
    private readonly busyTimeoutMs: number,
    /** Turns the writer's automatic checkpoint back on (the worker is gone). */
    private readonly fallBack: () => void,
  ) {}

  /** A write of `rows` rows committed. */
  noteWrites(rows: number): void {
    this.#written += rows;
    this.#startIfDue();
  }

  /** Resolves once a checkpoint that started after this call ended (at once when the worker is gone). */
  checkpointed(): Promise<void> {
    if (this.#failed) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.#forNextRun.push(resolve));
    this.#startIfDue();
    return done;
  }

  async close(): Promise<void> {
    this.#failed = true; // an exit now is the expected one
    await this.#worker?.terminate();
    this.#releaseAll();
  }

  #startIfDue(): void {
    if (this.#failed || this.#running) return; // a running checkpoint asks again when it ends
    if (this.#written < ROWS_PER_CHECKPOINT && this.#forNextRun.length === 0) return;
    this.#running = true;
    this.#written = 0;
    this.#forThisRun = this.#forNextRun;
    this.#forNextRun = [];
    this.#startedWorker().postMessage('checkpoint');
  }

  #startedWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_FILE, { workerData: { databasePath: this.databasePath, busyTimeoutMs: this.busyTimeoutMs } });
    worker.unref(); // never what keeps svcd alive
    worker.on('message', () => this.#ended());
    worker.on('error', () => this.#fail());
    worker.on('exit', () => this.#fail());
    this.#worker = worker;
    return worker;
  }

  #ended(): void {
    this.#running = false;
    for (const resolve of this.#forThisRun.splice(0)) resolve();
    this.#startIfDue();
  }

  #fail(): void {
    if (this.#failed) return;
    this.#failed = true;
    this.fallBack();
    this.#releaseAll();
  }

  #releaseAll(): void {
    for (const resolve of [...this.#forThisRun.splice(0), ...this.#forNextRun.splice(0)]) resolve();
  }
}
