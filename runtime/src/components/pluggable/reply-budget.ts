/**
 * Bytes of component replies svcd may hold at once, across every pluggable component. gRPC buffers a reply whole
 * before handing it over: one 200 MiB reply took svcd from 78 to 483 MiB, two at once to 887 MiB. Each reply is
 * capped (`--pluggable-max-reply-size`, enforced by gRPC as the bytes arrive) and each call reserves that cap
 * from this budget while it runs (`--pluggable-reply-budget`), so at most budget ÷ cap calls are in flight and the
 * replies they can bring stay within the budget; further calls wait their turn, in order.
 */
export class ReplyBudget {
  #free: number;
  readonly #waiting: { bytes: number; grant: () => void }[] = [];

  constructor(readonly totalBytes: number) {
    this.#free = totalBytes;
  }

  /** Resolves with the release of `bytes` once they are free (first come, first served). */
  async reserve(bytes: number): Promise<() => void> {
    const want = Math.min(bytes, this.totalBytes);
    if (this.#waiting.length > 0 || this.#free < want) await new Promise<void>((grant) => this.#waiting.push({ bytes: want, grant }));
    else this.#free -= want;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#free += want;
      this.#grantWaiting();
    };
  }

  #grantWaiting(): void {
    while (this.#waiting.length > 0 && this.#free >= this.#waiting[0]!.bytes) {
      const next = this.#waiting.shift()!;
      this.#free -= next.bytes;
      next.grant();
    }
  }
}
