/**
 * Orchestration batches offered while no worker is connected anywhere, kept by their instance ids alone.
 *
 * A batch is built from what its instance committed, so nothing is lost by not holding it: when workers come, the
 * instance's actor builds it again from the store and offers it (`wake`), as its `run` lease does after a crash.
 * Batches are woken oldest first and only as many as the workers have room for, so 100,000 instances started
 * before any worker connected are loaded as the workers take them, not all at once. Meanwhile each holds an entry
 * in one set here instead of its batch, the batch's events and a queue entry (about 0.7 KB less an instance;
 * docs/performance.md, ninth session).
 */
export class DormantBatches {
  /** In the order they were offered. */
  readonly #ids = new Set<string>();
  #waking = 0;

  /**
   * `wake` builds and offers an instance's batch again and settles when that turn is over; `settled` hears of each
   * wake that ended, `failed` when the batch could not be built (its lease, parked while the batch was here, must
   * watch again).
   */
  constructor(
    private readonly wake: (instanceId: string) => Promise<void>,
    private readonly settled: (instanceId: string, failed: boolean) => void,
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

  /** Wakes up to `count` batches, oldest first. */
  wakeUpTo(count: number): void {
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
    this.settled(instanceId, failed);
  }
}
