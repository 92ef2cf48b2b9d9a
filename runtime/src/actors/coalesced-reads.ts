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
 * two of a few keys: alone, each is a store round trip of its own (encoding, a command, parsing its answer). A read
 * asked for while none is in flight goes at once (a lone caller waits for no one: no loop turn added at one
 * workflow in flight); one asked for while others are in flight waits until the end of this turn of the event
 * loop (`setImmediate`) and goes to the store with the others asked for meanwhile as one `bulkGet`. Reads see what
 * was committed when the merged read runs, as a read on its own would: an actor's keys change only by its own
 * commits, and it does not commit while its turn waits for a read.
 */
export class CoalescedReads {
  #waiting: Waiting[] = [];
  #keyCount = 0;
  #inFlight = 0;

  constructor(private readonly store: Pick<StateStore, 'bulkGet'>) {}

  /** The items of `keys`, in their order (as `StateStore.bulkGet` answers them). */
  bulkGet(keys: readonly string[]): Promise<BulkGetItem[]> {
    if (keys.length > MAX_MERGED_KEYS || (this.#inFlight === 0 && this.#waiting.length === 0)) return this.#read(keys);
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
    this.#read(unique).then(
      (items) => {
        const byKey = new Map(unique.map((key, i) => [key, items[i] ?? { key }]));
        for (const w of batch) w.resolve(w.keys.map((key) => byKey.get(key)!));
      },
      (err: unknown) => {
        for (const w of batch) w.reject(err);
      },
    );
  }

  async #read(keys: readonly string[]): Promise<BulkGetItem[]> {
    this.#inFlight++;
    try {
      return await this.store.bulkGet(keys.map((key) => ({ key })));
    } finally {
      this.#inFlight--;
    }
  }
}
