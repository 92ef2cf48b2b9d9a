/**
 * An informer over one Kubernetes collection: list once, then watch from the list's resourceVersion and keep a
 * local copy current from the events. A watch that ends is resumed from the last resourceVersion seen (bookmarks
 * keep it fresh); one the API server answers with 410 Gone (that version was compacted away) is replaced by a new
 * list. Failures are retried with capped exponential backoff. Transport-free: the API calls are a `ListWatchSource`.
 */

/** One watch event as the API server sends it (`ERROR` carries a `Status` as its object). */
export interface WatchEvent<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: T;
}

export interface ListWatchSource<T> {
  list(): Promise<{ readonly items: readonly T[]; readonly resourceVersion: string }>;
  /**
   * Watches from `resourceVersion`. `onEvent` hears every event; `onEnd` is called exactly once, when the watch
   * ends for any reason (with the failure when it failed). The returned `stop` ends it without calling `onEnd`.
   */
  watch(resourceVersion: string, onEvent: (event: WatchEvent<T>) => void, onEnd: (err?: unknown) => void): { stop(): void };
}

export interface ListWatchOptions<T, V> {
  /** The key of an object (its uid); undefined: the object is not kept. */
  readonly key: (object: T) => string | undefined;
  /** What is kept of an object: the local copy holds only what its readers need. */
  readonly project: (object: T) => V;
  /** The resourceVersion of an object (bookmarks carry only that). */
  readonly resourceVersion: (object: T) => string | undefined;
  readonly onProblem: (problem: string, retryInMs: number) => void;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
}

const DEFAULT_BACKOFF = { initialMs: 500, maxMs: 30_000 };
/** A watch that ends without a failure sooner than this is retried with backoff, not at once. */
const QUICK_END_MS = 1_000;

/** A watch ERROR event's HTTP code (410: the version asked for is gone). */
function statusCode(object: unknown): number | undefined {
  const code = (object as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

export class ListWatch<T, V> {
  readonly #items = new Map<string, V>();
  readonly #backoff: { readonly initialMs: number; readonly maxMs: number };
  #resourceVersion: string | undefined;
  #synced = false;
  /** Set while the first list has not succeeded: why the last attempt failed. */
  #lastFailure: Error | undefined;
  /** Callers waiting for the outcome of the list in flight. */
  #waiting: { resolve: () => void; reject: (err: Error) => void }[] = [];
  #retryDelayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #watch: { stop(): void } | undefined;
  #listing = false;
  #stopped = false;
  #started = false;

  constructor(
    private readonly source: ListWatchSource<T>,
    private readonly o: ListWatchOptions<T, V>,
  ) {
    this.#backoff = o.backoff ?? DEFAULT_BACKOFF;
    this.#retryDelayMs = this.#backoff.initialMs;
  }

  /**
   * Resolves once the local copy holds a complete list. Before the first list succeeded: waits for the attempt in
   * flight, and rejects with why the last one failed while the next one waits for its backoff (a caller is not held
   * for up to the backoff's maximum; the retries go on).
   */
  ready(): Promise<void> {
    if (!this.#started) {
      this.#started = true;
      void this.#list();
    }
    if (this.#synced) return Promise.resolve();
    if (!this.#listing && this.#lastFailure) return Promise.reject(this.#lastFailure);
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
  }

  /** The projections of the objects currently known. */
  values(): IterableIterator<V> {
    return this.#items.values();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#watch?.stop();
    this.#watch = undefined;
    this.#settle(new Error('stopped'));
  }

  async #list(): Promise<void> {
    if (this.#stopped) return;
    this.#listing = true;
    try {
      const { items, resourceVersion } = await this.source.list();
      if (this.#stopped) return;
      this.#items.clear();
      for (const item of items) this.#put(item);
      this.#resourceVersion = resourceVersion;
      this.#synced = true;
      this.#lastFailure = undefined;
      this.#listing = false;
      this.#settle();
      this.#startWatch();
    } catch (err) {
      this.#listing = false;
      this.#lastFailure = err instanceof Error ? err : new Error(String(err));
      this.#settle(this.#lastFailure);
      this.#retry(`list failed: ${this.#lastFailure.message}`, () => void this.#list());
    }
  }

  #startWatch(): void {
    if (this.#stopped || this.#resourceVersion === undefined) return;
    let gone = false;
    const startedAt = Date.now();
    this.#watch = this.source.watch(
      this.#resourceVersion,
      (event) => {
        if (event.type === 'ERROR') {
          gone = statusCode(event.object) === 410;
          return;
        }
        // An event proves the connection works: the next failure starts the backoff afresh.
        this.#retryDelayMs = this.#backoff.initialMs;
        const rv = this.o.resourceVersion(event.object);
        if (rv !== undefined) this.#resourceVersion = rv;
        if (event.type === 'DELETED') {
          const key = this.o.key(event.object);
          if (key !== undefined) this.#items.delete(key);
        } else if (event.type !== 'BOOKMARK') {
          this.#put(event.object);
        }
      },
      (err) => {
        this.#watch = undefined;
        if (this.#stopped) return;
        if (gone) {
          // The copy stays readable (slightly stale) until the new list replaces it.
          this.#resourceVersion = undefined;
          this.#retryDelayMs = this.#backoff.initialMs;
          void this.#list();
        } else if (err === undefined && Date.now() - startedAt >= QUICK_END_MS) {
          // The API server ends every watch after its timeout: resume where it left off.
          this.#startWatch();
        } else {
          // A watch that fails, or ends as soon as it began (a proxy closing it), waits before the next one.
          this.#retry(`watch failed: ${err === undefined ? 'ended at once' : (err as Error).message}`, () => this.#startWatch());
        }
      },
    );
  }

  #put(object: T): void {
    const key = this.o.key(object);
    if (key !== undefined) this.#items.set(key, this.o.project(object));
  }

  #retry(problem: string, again: () => void): void {
    if (this.#stopped) return;
    const delay = this.#retryDelayMs;
    this.#retryDelayMs = Math.min(delay * 2, this.#backoff.maxMs);
    this.o.onProblem(problem, delay);
    this.#timer = setTimeout(again, delay);
    this.#timer.unref();
  }

  #settle(err?: Error): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) {
      if (err) w.reject(err);
      else w.resolve();
    }
  }
}
