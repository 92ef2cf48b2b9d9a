/**
 * Orchestration batches offered while no worker is connected anywhere, kept by their instance ids alone.
 *
 * A batch is built from what its instance committed, so nothing is lost by not holding it: when workers come, the
 * instance's actor builds it again from the store and offers it (`wake`), as its `run` lease does after a crash.
 * Batches are woken oldest first and only as many as the workers have room for, so 100,000 instances started
 * before any worker connected are loaded as the workers take them, not all at once. Meanwhile each holds an entry
 * in one set here instead of its batch, the batch's events and a queue entry (about 0.7 KB less an instance;
 * docs/performance.md, ninth session).
 *
 * A wake that fails (the store is down) keeps its batch dormant, at the back, and pauses the wakes for a while
 * (doubling up to RETRY_MAX_MS while they keep failing): a store outage while 100,000 batches wait costs a few
 * failed reads a pause, not 100,000 at once.
 */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export class DormantBatches {
  /** In the order they were offered. */
  readonly #ids = new Set<string>();
  #waking = 0;
  #retryMs = 0;
  #paused: NodeJS.Timeout | undefined;

  /**
   * `wake` builds and offers an instance's batch again and settles when that turn is over; `mayWakeMore` hears
   * when more batches may be woken (a wake ended, or a pause after a failed one).
   */
  constructor(
    private readonly wake: (instanceId: string) => Promise<void>,
    private readonly mayWakeMore: () => void,
  ) {}

  get size(): number {
    return this.#ids.size;
  }

  /** Batches being built again: their offers are on their way. */
  get waking(): number {
    return this.#waking;
  }

  has(instanceId: string): boolean {
    return this.#ids.has(instanceId);
  }

  add(instanceId: string): void {
    this.#ids.add(instanceId);
  }

  delete(instanceId: string): boolean {
    return this.#ids.delete(instanceId);
  }

  /** Drops the batches of the instances `which` selects; returns those instances. */
  deleteWhere(which: (instanceId: string) => boolean): string[] {
    const dropped = [...this.#ids].filter(which);
    for (const id of dropped) this.#ids.delete(id);
    return dropped;
  }

  /** Wakes up to `count` batches, oldest first (none while paused after a failed wake). */
  wakeUpTo(count: number): void {
    if (this.#paused) return;
    for (const instanceId of this.#ids) {
      if (count-- <= 0) return;
      this.#ids.delete(instanceId);
      this.#waking++;
      this.wake(instanceId).then(
        () => this.#settle(instanceId, false),
        () => this.#settle(instanceId, true),
      );
    }
  }

  #settle(instanceId: string, failed: boolean): void {
    this.#waking--;
    if (!failed) {
      this.#retryMs = 0;
      this.mayWakeMore();
      return;
    }
    this.#ids.add(instanceId);
    if (this.#paused) return;
    this.#retryMs = Math.min(RETRY_MAX_MS, this.#retryMs === 0 ? RETRY_FIRST_MS : this.#retryMs * 2);
    this.#paused = setTimeout(() => {
      this.#paused = undefined;
      this.mayWakeMore();
    }, this.#retryMs);
    this.#paused.unref();
  }

  /** Ends a pause (shutdown). */
  close(): void {
    clearTimeout(this.#paused);
  }
}
