/** A ready/not-ready flag others can wait on to change (gRPC health Watch streams), without polling. */
export class Readiness {
  #ready = false;
  #waiters: (() => void)[] = [];

  get ready(): boolean {
    return this.#ready;
  }

  set(ready: boolean): void {
    if (ready === this.#ready) return;
    this.#ready = ready;
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Resolves at the next change. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
