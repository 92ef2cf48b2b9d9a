import { flattened } from '../util/flat-string.js';
import { MinHeap } from './min-heap.js';
import type { Clock, EpochMs, TimerHandle } from './types.js';

/** Identity of one reminder and the version of it that is scheduled. */
export interface ScheduledFire {
  readonly type: string;
  readonly actorId: string;
  readonly name: string;
  readonly generation: number;
  readonly at: EpochMs;
}

interface HeapItem extends ScheduledFire {
  readonly seq: number;
}

const reminderKey = (f: { type: string; actorId: string; name: string }) => flattened(`${f.type}||${f.actorId}||${f.name}`);

/**
 * In-process reminder scheduler: a min-heap of next fire times and ONE clock timer armed on the earliest.
 * Each reminder has at most one live heap item (rescheduling or unscheduling makes older items stale; stale
 * items are skipped when they surface). A dispatched reminder is not scheduled again until its owner decides
 * (acknowledged → next period, failed → retry), so it never fires twice concurrently.
 */
export class ReminderScheduler {
  readonly #heap = new MinHeap<HeapItem>((a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq));
  readonly #live = new Map<string, number>();
  #seq = 0;
  #timer: TimerHandle | undefined;
  #armedAt: EpochMs | undefined;
  #running = false;

  constructor(
    private readonly clock: Clock,
    private readonly dispatch: (fire: ScheduledFire) => void,
  ) {}

  start(): void {
    this.#running = true;
    this.#arm();
  }

  stop(): void {
    this.#running = false;
    this.#disarm();
  }

  schedule(fire: ScheduledFire): void {
    // Every property spelled out: one hidden class for all items (a spread gave each its own).
    const item: HeapItem = { type: fire.type, actorId: fire.actorId, name: fire.name, generation: fire.generation, at: fire.at, seq: ++this.#seq };
    this.#live.set(reminderKey(fire), item.seq);
    this.#heap.push(item);
    if (this.#armedAt === undefined || item.at < this.#armedAt) this.#arm();
  }

  unschedule(r: { type: string; actorId: string; name: string }): void {
    this.#live.delete(reminderKey(r));
  }

  /** Reminders waiting in the heap (not counting dispatched ones). */
  pendingCount(): number {
    return this.#live.size;
  }

  #disarm(): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedAt = undefined;
  }

  #arm(): void {
    this.#disarm();
    if (!this.#running) return;
    this.#dropStale();
    const next = this.#heap.peek();
    if (!next) return;
    this.#armedAt = next.at;
    this.#timer = this.clock.setTimeout(() => this.#fireDue(), Math.max(0, next.at - this.clock.now()));
  }

  #dropStale(): void {
    for (let top = this.#heap.peek(); top && this.#live.get(reminderKey(top)) !== top.seq; top = this.#heap.peek()) this.#heap.pop();
  }

  #fireDue(): void {
    this.#timer = undefined;
    this.#armedAt = undefined;
    const now = this.clock.now();
    for (;;) {
      this.#dropStale();
      const top = this.#heap.peek();
      if (!top || top.at > now || !this.#running) break;
      this.#heap.pop();
      this.#live.delete(reminderKey(top));
      this.dispatch(top);
    }
    this.#arm();
  }
}
