import { MinHeap } from './min-heap.js';
import type { Clock, EpochMs, TimerHandle } from './types.js';

/** What the sweeper needs to know about an activation. */
export interface IdleCandidate {
  readonly closed: boolean;
  readonly idle: boolean;
  /** Set while the candidate has an entry in the sweeper. */
  idleWatched: boolean;
}

interface Entry<T> {
  readonly at: EpochMs;
  readonly candidate: T;
}

/**
 * Idle deactivation for any number of actors with ONE clock timer: a min-heap of idle deadlines, the timer armed
 * on the earliest. Entries are checked lazily when they come due: an actor that was used meanwhile gets its new
 * deadline (`deadline(candidate)`), a busy one is dropped (it comes back when its queue runs empty), an expired
 * idle one is handed to `expire`.
 */
export class IdleSweeper<T extends IdleCandidate> {
  readonly #heap = new MinHeap<Entry<T>>((a, b) => a.at < b.at);
  #timer: TimerHandle | undefined;
  #armedAt: EpochMs | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly deadline: (candidate: T) => EpochMs,
    private readonly expire: (candidate: T) => void,
  ) {}

  /** The candidate's queue ran empty: make sure it has a deadline entry. */
  watch(candidate: T): void {
    if (candidate.closed || candidate.idleWatched) return;
    candidate.idleWatched = true;
    this.#push({ at: this.deadline(candidate), candidate });
  }

  stop(): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedAt = undefined;
  }

  #push(entry: Entry<T>): void {
    this.#heap.push(entry);
    if (this.#armedAt === undefined || entry.at < this.#armedAt) this.#arm(entry.at);
  }

  #arm(at: EpochMs): void {
    this.stop();
    this.#armedAt = at;
    this.#timer = this.clock.setTimeout(() => this.#sweep(), Math.max(0, at - this.clock.now()));
  }

  #sweep(): void {
    this.#timer = undefined;
    this.#armedAt = undefined;
    const now = this.clock.now();
    for (let top = this.#heap.peek(); top && top.at <= now; top = this.#heap.peek()) {
      this.#heap.pop();
      const c = top.candidate;
      if (c.closed || !c.idle) {
        c.idleWatched = false;
        continue;
      }
      const at = this.deadline(c);
      if (at <= now) {
        c.idleWatched = false;
        this.expire(c);
      } else this.#heap.push({ at, candidate: c });
    }
    const next = this.#heap.peek();
    if (next) this.#arm(next.at);
  }
}
