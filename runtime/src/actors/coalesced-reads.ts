import type { BulkGetItem, StateStore } from '../components/contracts/state-store.js';

/** Reads larger than this go to the store on their own: they are one round trip's worth already. */
const MAX_MERGED_KEYS = 1_000;

interface Waiting {
  readonly keys: readonly string[];
  readonly resolve: (items: BulkGetItem[]) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Actor state reads of many activations merged into one store read. A burst of reminder fires (thousands of
 * timers due at one moment) activates hundreds of instances together, and each loads its state with a read or
 * two of a few keys: alone, each is a store round trip of its own (encoding, a command, parsing its answer). Every
 * read asked for in one turn of the event loop waits until the end of that turn (`setImmediate`) and goes to the
 * store with the others as one `bulkGet`. Reads see what was committed when the merged read runs, as a read on
 * its own would: an actor's keys change only by its own commits, and it does not commit while its turn waits for
 * a read.
 */
export class CoalescedReads {
  #waiting: Waiting[] = [];
  #keyCount = 0;

  constructor(private readonly store: Pick<StateStore, 'bulkGet'>) {}

  /** The items of `keys`, in their order (as `StateStore.bulkGet` answers them). */
  bulkGet(keys: readonly string[]): Promise<BulkGetItem[]> {
    if (keys.length > MAX_MERGED_KEYS) return this.store.bulkGet(keys.map((key) => ({ key })));
    return new Promise((resolve, reject) => {
      if (this.#keyCount + keys.length > MAX_MERGED_KEYS) this.#flush();
      if (this.#waiting.length === 0) setImmediate(() => this.#flush());
      this.#waiting.push({ keys, resolve, reject });
      this.#keyCount += keys.length;
    });
  }

  #flush(): void {
    const batch = this.#waiting;
    if (batch.length === 0) return;
    this.#waiting = [];
    this.#keyCount = 0;
    const unique = [...new Set(batch.flatMap((w) => w.keys))];
    this.store.bulkGet(unique.map((key) => ({ key }))).then(
      (items) => {
        const byKey = new Map(unique.map((key, i) => [key, items[i] ?? { key }]));
        for (const w of batch) w.resolve(w.keys.map((key) => byKey.get(key)!));
      },
      (err: unknown) => {
        for (const w of batch) w.reject(err);
      },
    );
  }
}
