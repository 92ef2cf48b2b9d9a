/**
 * The dispatcher's waiting line: keys in order, items handed back (their worker left) ahead of new ones. Every
 * operation is O(1) (Maps keep insertion order), so a fan-out of 100,000 activities queues, dequeues and
 * withdraws without shifting or searching arrays.
 */
export class WorkQueue {
  /** Handed back by a worker that left: they go out first, in the order they were first queued. */
  #front = new Map<string, true>();
  readonly #back = new Map<string, true>();

  get size(): number {
    return this.#front.size + this.#back.size;
  }

  push(key: string): void {
    this.#back.set(key, true);
  }

  /** Puts keys ahead of everything queued now, keeping their order. */
  pushFront(keys: readonly string[]): void {
    if (keys.length === 0) return;
    const front = new Map<string, true>();
    for (const k of keys) front.set(k, true);
    for (const k of this.#front.keys()) front.set(k, true);
    this.#front = front;
  }

  delete(key: string): boolean {
    return this.#front.delete(key) || this.#back.delete(key);
  }

  /** Keys in order. Deleting the current key while iterating is allowed (Map iteration tolerates it). */
  *keys(): IterableIterator<string> {
    yield* this.#front.keys();
    yield* this.#back.keys();
  }
}
