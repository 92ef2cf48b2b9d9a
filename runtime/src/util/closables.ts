/**
 * What a component has opened for its callers (subscriptions, read streams): each caller gets a handle that
 * closes its own one; the component closes whatever is still open when it closes.
 */
export class Closables<T extends { close(): Promise<void> }> {
  readonly #open = new Set<T>();

  /** Tracks `item` and gives the caller's handle on it. */
  add(item: T): { close(): Promise<void> } {
    this.#open.add(item);
    return {
      close: async () => {
        this.#open.delete(item);
        await item.close();
      },
    };
  }

  async closeAll(): Promise<void> {
    const items = [...this.#open];
    this.#open.clear();
    await Promise.all(items.map((i) => i.close()));
  }
}
