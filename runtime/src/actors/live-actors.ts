/**
 * The activations of one host, by actor, with a count per type kept in step (metadata and the gauge read it
 * without walking every activation), and the deactivations still running (a new activation of the same actor
 * waits for its predecessor's).
 */
import type { Activation } from './activation.js';
import { ownershipPartitionOf } from './placement/partitions.js';

/** One actor's key among the live ones (and the marker of the actor whose turn body is starting). */
export const actorKey = (type: string, id: string): string => `${type}||${id}`;

export class LiveActors {
  readonly #byKey = new Map<string, Activation>();
  readonly #countByType = new Map<string, number>();
  readonly #deactivating = new Map<string, Promise<void>>();

  get(type: string, id: string): Activation | undefined {
    return this.#byKey.get(actorKey(type, id));
  }

  all(): Activation[] {
    return [...this.#byKey.values()];
  }

  /** The activations whose actors hash onto these ownership partitions. */
  inPartitions(partitions: readonly number[]): Activation[] {
    const set = new Set(partitions);
    return this.all().filter((a) => set.has(ownershipPartitionOf(a.id)));
  }

  count(type: string): number {
    return this.#countByType.get(type) ?? 0;
  }

  add(activation: Activation): void {
    this.#byKey.set(actorKey(activation.type, activation.id), activation);
    this.#countByType.set(activation.type, this.count(activation.type) + 1);
  }

  /** Removes the activation if it is still its actor's current one. */
  remove(activation: Activation): void {
    const key = actorKey(activation.type, activation.id);
    if (this.#byKey.get(key) !== activation) return;
    this.#byKey.delete(key);
    this.#countByType.set(activation.type, this.count(activation.type) - 1);
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
