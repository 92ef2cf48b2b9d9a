/**
 * The dispatcher's waiting line: keys in order, items handed back (their worker left) ahead of new ones. Push,
 * delete and taking from the head are O(1) amortized — an array with a moving head, deleted keys skipped and
 * dropped as the head passes them — so a fan-out of 100,000 activities queues, dequeues and withdraws without
 * shifting arrays or walking past what was already taken.
 */
export class WorkQueue {
  #entries: { key: string; seq: number }[] = [];
  #head = 0;
  /** The entry of each queued key (by seq): a key deleted and queued again is not seen twice. */
  readonly #live = new Map<string, number>();
  #seq = 0;

  get size(): number {
    return this.#live.size;
  }

  push(key: string): void {
    const seq = ++this.#seq;
    this.#live.set(key, seq);
    this.#entries.push({ key, seq });
  }

  /** Puts keys ahead of everything queued now, keeping their order (rare: a worker left). */
  pushFront(keys: readonly string[]): void {
    if (keys.length === 0) return;
    const front = keys.map((key) => {
      const seq = ++this.#seq;
      this.#live.set(key, seq);
      return { key, seq };
    });
    this.#entries = [...front, ...this.#entries.slice(this.#head).filter((e) => this.#live.get(e.key) === e.seq)];
    this.#head = 0;
  }

  delete(key: string): boolean {
    return this.#live.delete(key);
  }

  /** Keys in order. Deleting keys while iterating is allowed. */
  *keys(): IterableIterator<string> {
    this.#skipDeadHead();
    for (let i = this.#head; i < this.#entries.length; i++) {
      const e = this.#entries[i] as { key: string; seq: number };
      if (this.#live.get(e.key) === e.seq) yield e.key;
    }
    this.#skipDeadHead();
  }

  #skipDeadHead(): void {
    while (this.#head < this.#entries.length) {
      const e = this.#entries[this.#head] as { key: string; seq: number };
      if (this.#live.get(e.key) === e.seq) break;
      this.#head++;
    }
    // Compact once most of the array is behind the head.
    if (this.#head > 1024 && this.#head * 2 > this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head);
      this.#head = 0;
    }
  }
}
