/**
 * A first-in first-out queue with O(1) `shift`. `Array.prototype.shift` copies the whole array once it is large:
 * an actor with 100,000 queued turns (a fan-out's results) spent seconds in it without yielding.
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined; // no reference kept to what left the queue
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Empties the queue, returning what was in it. */
  takeAll(): T[] {
    const all = this.#items.slice(this.#head) as T[];
    this.#items = [];
    this.#head = 0;
    return all;
  }
}
