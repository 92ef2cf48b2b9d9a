/**
 * The activations of one host, by actor type and id (the count of a type, which metadata and the gauge read, is
 * its map's size), and the deactivations still running (a new activation of the same actor waits for its
 * predecessor's).
 */
import type { Activation } from './activation.js';
import { ownershipPartitionOf } from './placement/partitions.js';

/** One actor's key among the deactivations running. */
const actorKey = (type: string, id: string): string => `${type}||${id}`;

export class LiveActors {
  /**
   * By type, then by id: a lookup on every call and reminder fire hashes the id it has, where one `type||id` key
   * was built, flattened and hashed each time (1 % of svcd's CPU while a burst of timer workflows drained).
   */
  readonly #byType = new Map<string, Map<string, Activation>>();
  readonly #deactivating = new Map<string, Promise<void>>();

  get(type: string, id: string): Activation | undefined {
    return this.#byType.get(type)?.get(id);
  }

  all(): Activation[] {
    const out: Activation[] = [];
    for (const ofType of this.#byType.values()) for (const activation of ofType.values()) out.push(activation);
    return out;
  }

  /** The activations whose actors hash onto these ownership partitions. */
  inPartitions(partitions: readonly number[]): Activation[] {
    const set = new Set(partitions);
    return this.all().filter((a) => set.has(ownershipPartitionOf(a.id)));
  }

  count(type: string): number {
    return this.#byType.get(type)?.size ?? 0;
  }

  add(activation: Activation): void {
    let ofType = this.#byType.get(activation.type);
    if (!ofType) this.#byType.set(activation.type, (ofType = new Map<string, Activation>()));
    ofType.set(activation.id, activation);
  }

  /** Removes the activation if it is still its actor's current one. */
  remove(activation: Activation): void {
    const ofType = this.#byType.get(activation.type);
    if (ofType?.get(activation.id) === activation) ofType.delete(activation.id);
  }

  /** The deactivation of the actor's previous activation, while it runs. */
  deactivation(type: string, id: string): Promise<void> | undefined {
    return this.#deactivating.get(actorKey(type, id));
  }

  deactivating(activation: Activation, done: Promise<void>): void {
    const key = actorKey(activation.type, activation.id);
    this.#deactivating.set(key, done);
    void done.then(() => {
      if (this.#deactivating.get(key) === done) this.#deactivating.delete(key);
    });
  }

  /** Every deactivation still running. */
  deactivations(): Promise<void>[] {
    return [...this.#deactivating.values()];
  }
}
