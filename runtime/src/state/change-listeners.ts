/**
 * A backend's `subscribe` callbacks and the one connection that feeds them, opened by the first subscriber;
 * every later subscriber waits for the same opening. A subscriber whose opening failed is forgotten.
 */
export class ChangeListeners {
  readonly #listeners: (() => void)[] = [];
  #opening: Promise<void> | undefined;

  constructor(private readonly open: () => Promise<void>) {}

  async add(onChange: () => void): Promise<void> {
    this.#listeners.push(onChange);
    this.#opening ??= this.open().catch((err: unknown) => {
      this.#opening = undefined;
      throw err;
    });
    try {
      await this.#opening;
    } catch (err) {
      this.#listeners.splice(this.#listeners.indexOf(onChange), 1);
      throw err;
    }
  }

  notify(): void {
    for (const listener of this.#listeners) listener();
  }
}
