/**
 * Activity results recorded in batches per instance: while one turn recording an instance's results is in
 * flight, the results that arrive meanwhile wait and go together in its next turn — one commit for all of them.
 * A 100,000-activity fan-out recorded one commit per result: its pace was the store's commit rate, and every
 * waiting result held its gRPC call in memory (1.5 GiB on Redis and PostgreSQL).
 * The first result of an idle instance waits one turn of the event loop (setImmediate), so results read from the
 * same socket read travel together: a fan-out of 20 at 50 workflows in flight took 3.0 worker turns per workflow
 * when the first result went alone, 2.4 with this (docs/performance.md).
 */

/** Results per turn at most: a turn stays short however many results wait. */
const MAX_BATCH = 5000;

interface Batch<T> {
  readonly items: T[];
  readonly done: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

export class ResultBatcher<T> {
  /** Batches not sent yet, oldest first, per instance. */
  readonly #waiting = new Map<string, Batch<T>[]>();
  /** Instances with a batch being recorded or about to be (their next batch waits for it). */
  readonly #inFlight = new Set<string>();

  constructor(private readonly record: (instanceId: string, items: T[]) => Promise<void>) {}

  /** Resolves once the batch holding `item` was recorded; rejects with that batch's failure. */
  add(instanceId: string, item: T): Promise<void> {
    let queue = this.#waiting.get(instanceId);
    if (!queue) this.#waiting.set(instanceId, (queue = []));
    let batch = queue.at(-1);
    if (!batch || batch.items.length >= MAX_BATCH) queue.push((batch = newBatch<T>()));
    batch.items.push(item);
    if (!this.#inFlight.has(instanceId)) {
      this.#inFlight.add(instanceId);
      setImmediate(() => this.#sendNext(instanceId));
    }
    return batch.done;
  }

  #sendNext(instanceId: string): void {
    const queue = this.#waiting.get(instanceId);
    const batch = queue?.shift();
    if (!batch) {
      this.#waiting.delete(instanceId);
      this.#inFlight.delete(instanceId);
      return;
    }
    this.record(instanceId, batch.items)
      .then(batch.resolve, batch.reject)
      .finally(() => this.#sendNext(instanceId));
  }
}

function newBatch<T>(): Batch<T> {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  // A batch's failure is reported to each of its callers; none may go unhandled meanwhile.
  done.catch(() => undefined);
  return { items: [], done, resolve, reject };
}
