/**
 * The handler calls one subscription has outstanding, at most `limit`: a broker reader takes a message only when
 * `free()` resolved, so a slow app holds back reading instead of piling messages up in svcd.
 */
export class HandlerSlots {
  readonly #inFlight = new Set<Promise<void>>();
  #slotFreed: (() => void) | undefined;
  #closed = false;

  constructor(readonly limit: number) {}

  get available(): number {
    return Math.max(0, this.limit - this.#inFlight.size);
  }

  /** Counts `call` until it settles (it must not reject). */
  track(call: Promise<void>): void {
    this.#inFlight.add(call);
    void call.finally(() => {
      this.#inFlight.delete(call);
      this.#slotFreed?.();
    });
  }

  /** Resolves when a slot is free, or at once once closed. */
  async free(): Promise<void> {
    while (this.#inFlight.size >= this.limit && !this.#closed) await new Promise<void>((resolve) => (this.#slotFreed = resolve));
  }

  /** Wakes a waiting `free()` and resolves when every call in flight settled. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#slotFreed?.();
    await Promise.all([...this.#inFlight]);
  }
}
