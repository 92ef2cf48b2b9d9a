/**
 * A map whose entries each expire at their own time, holding at most `maxEntries`: when full, expired entries go
 * first, then the oldest. For caches keyed by what callers send (a token's hash), which must not grow with them.
 */
export class ExpiringMap<K, V> {
  readonly #entries = new Map<K, { readonly value: V; readonly expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > this.now()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  /** Keeps `value` until `expiresAt` (epoch ms); a time already past keeps nothing. */
  set(key: K, value: V, expiresAt: number): void {
    this.#entries.delete(key);
    if (expiresAt <= this.now()) return;
    if (this.#entries.size >= this.maxEntries) this.#makeRoom();
    this.#entries.set(key, { value, expiresAt });
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  #makeRoom(): void {
    const now = this.now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
    // Insertion order: the first key is the oldest.
    while (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as K);
  }
}
