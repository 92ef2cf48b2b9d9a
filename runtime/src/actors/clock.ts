import type { Clock, EpochMs, TimerHandle } from './types.js';

/** Wall-clock time and Node timers. Long delays are chained because Node caps a timer at ~24.8 days. */
export class RealClock implements Clock {
  static readonly MAX_NODE_DELAY_MS = 2_147_483_647;

  now(): EpochMs {
    return Date.now();
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle: { timer?: NodeJS.Timeout } = {};
    const arm = (remaining: number) => {
      const step = Math.min(Math.max(0, remaining), RealClock.MAX_NODE_DELAY_MS);
      handle.timer = setTimeout(() => (remaining > step ? arm(remaining - step) : fn()), step);
      handle.timer.unref?.();
    };
    arm(ms);
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    clearTimeout((handle as { timer?: NodeJS.Timeout }).timer);
  }
}

interface FakeTimer {
  readonly seq: number;
  readonly at: EpochMs;
  readonly fn: () => void;
}

/**
 * Time that only moves when a test says so. `advance(ms)` runs every callback due on the way, in due-time
 * order (ties in creation order), setting `now()` to each callback's due time, and lets pending promise
 * chains settle after each one, so actor turns started by a callback run before the next callback.
 */
export class FakeClock implements Clock {
  #now: EpochMs;
  #seq = 0;
  readonly #timers = new Map<number, FakeTimer>();

  constructor(start: EpochMs = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): EpochMs {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const seq = ++this.#seq;
    this.#timers.set(seq, { seq, at: this.#now + Math.max(0, ms), fn });
    return seq;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  /** Number of callbacks not run yet. */
  pending(): number {
    return this.#timers.size;
  }

  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await settle();
    for (;;) {
      const next = this.#earliest();
      if (!next || next.at > target) break;
      this.#timers.delete(next.seq);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
      await settle();
    }
    this.#now = target;
    await settle();
  }

  #earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.#timers.values()) if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    return best;
  }
}

/** Lets promise chains and I/O callbacks queued so far run (a few macrotask hops). */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
