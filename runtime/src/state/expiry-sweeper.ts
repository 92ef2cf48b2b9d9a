/**
 * Removes expired values from a store now and then, so values saved with `ttlInSeconds` do not pile up. Reads
 * already treat an expired value as absent: the sweep only reclaims the space. A timer on the interval (not a
 * busy loop); each run removes a batch at a time and goes on while batches come back full.
 */
const SWEEP_INTERVAL_MS = 60_000;

export class ExpirySweeper {
  readonly #timer: NodeJS.Timeout;
  #running = false;

  /** `sweepBatch` removes up to one batch and says how many it removed; `batchSize` full batches mean "go on". */
  constructor(
    private readonly sweepBatch: () => number | Promise<number>,
    private readonly batchSize = 1000,
    intervalMs = SWEEP_INTERVAL_MS,
  ) {
    this.#timer = setInterval(() => void this.sweep(), intervalMs);
    this.#timer.unref();
  }

  /** One sweep now (also what the timer runs); overlapping calls do nothing. Resolves with the rows removed. */
  async sweep(): Promise<number> {
    if (this.#running) return 0;
    this.#running = true;
    let total = 0;
    try {
      for (;;) {
        const removed = await this.sweepBatch();
        total += removed;
        if (removed < this.batchSize) return total;
        await new Promise<void>((resolve) => setImmediate(resolve)); // other work between batches
      }
    } catch {
      return total; // the store is closing or unreachable: the next sweep tries again
    } finally {
      this.#running = false;
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
