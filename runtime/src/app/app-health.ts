/**
 * App health checks (`--enable-app-health-check`): svcd probes the app every interval; after `threshold` failed
 * probes in a row the app is unhealthy and pub/sub and input binding deliveries wait (the messages stay in flight,
 * within each subscription's concurrency, or with the broker) until one probe succeeds again. Without health
 * checks the gate is always open.
 */
import type { Logger } from '../log/logger.js';
import type { Part } from '../util/lifecycle.js';

export interface AppGate {
  /** Resolves at once while the app is healthy, else when it is healthy again (or `signal` aborts). */
  whenHealthy(signal?: AbortSignal): Promise<void>;
}

export const OPEN_GATE: AppGate = { whenHealthy: () => Promise.resolve() };

export class AppHealth implements Part, AppGate {
  readonly name = 'app-health';
  #healthy = true;
  #failures = 0;
  #timer: NodeJS.Timeout | undefined;
  #waiters: (() => void)[] = [];

  constructor(
    private readonly probe: () => Promise<boolean>,
    private readonly opts: { readonly intervalMs: number; readonly threshold: number },
    private readonly log: Logger,
  ) {}

  get healthy(): boolean {
    return this.#healthy;
  }

  start(): Promise<void> {
    this.#timer = setInterval(() => void this.#check(), this.opts.intervalMs);
    this.#timer.unref();
    return Promise.resolve();
  }

  stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#set(true); // nothing waits for a probe that will not come
    return Promise.resolve();
  }

  whenHealthy(signal?: AbortSignal): Promise<void> {
    if (this.#healthy || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#waiters.push(resolve);
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  async #check(): Promise<void> {
    const ok = await this.probe().catch(() => false);
    if (ok) {
      this.#failures = 0;
      if (!this.#healthy) this.log.info('the app is healthy again: deliveries resume');
      this.#set(true);
      return;
    }
    this.#failures++;
    if (this.#healthy && this.#failures >= this.opts.threshold) {
      this.log.warn({ failedProbes: this.#failures }, 'the app is unhealthy: pub/sub and input binding deliveries wait until it is healthy');
      this.#set(false);
    }
  }

  #set(healthy: boolean): void {
    this.#healthy = healthy;
    if (healthy) for (const w of this.#waiters.splice(0)) w();
  }
}
