/**
 * Workers whose work item stream is blocked by flow control (the worker is not reading), each with a timer that
 * fires when it stays blocked past the workflow-task timeout: such a worker is unresponsive (dispatcher.ts, "A hung
 * worker").
 */
import type { WorkerConnection } from './work-items.js';

export class BlockedStreams {
  readonly #timers = new Map<number, NodeJS.Timeout>();

  /** `timeoutMs` 0: a blocked stream is waited for for ever. */
  constructor(
    private readonly timeoutMs: number,
    private readonly stayedBlocked: (worker: WorkerConnection) => void,
  ) {}

  /** The stream cannot take more; a wait already running keeps its start. */
  blocked(worker: WorkerConnection): void {
    if (this.timeoutMs <= 0 || this.#timers.has(worker.id)) return;
    const timer = setTimeout(() => {
      this.#timers.delete(worker.id);
      this.stayedBlocked(worker);
    }, this.timeoutMs);
    timer.unref();
    this.#timers.set(worker.id, timer);
  }

  /** The stream drained, or the worker left. */
  drained(workerId: number): void {
    clearTimeout(this.#timers.get(workerId));
    this.#timers.delete(workerId);
  }

  clear(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
