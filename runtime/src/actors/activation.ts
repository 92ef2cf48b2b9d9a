import type { IdleCandidate } from './idle-sweeper.js';
import type { TurnKind } from './metrics.js';
import type { ActorStateCache } from './state-cache.js';
import type { TimerHost, TurnContext } from './turn-context.js';
import type { Actor, Clock, EpochMs, TimerHandle, TimerInfo, TimerOptions } from './types.js';
import { Fifo } from '../util/fifo.js';

export interface Turn {
  readonly kind: TurnKind;
  readonly body: (ctx: TurnContext) => Promise<Buffer | undefined>;
  readonly resolve: (value: Buffer | undefined) => void;
  readonly reject: (err: unknown) => void;
}

/** What an activation needs from the runtime. */
export interface ActivationHost {
  readonly clock: Clock;
  /** Runs one turn to its commit; throws the turn's error (nothing committed). */
  runTurn(activation: Activation, turn: Turn): Promise<Buffer | undefined>;
  /** The activation's queue just ran empty. */
  becameIdle(activation: Activation): void;
  timerFailed(activation: Activation, name: string, err: unknown): void;
}

interface ActiveTimer {
  readonly info: TimerInfo;
  readonly expiresAt: EpochMs | undefined;
  repetitionsLeft: number | undefined;
  handle: TimerHandle | undefined;
}

/**
 * One live actor: its instance, state cache, FIFO of turns (run strictly one at a time) and in-memory timers.
 * Timer turns do not count as activity, so an actor that only has timers still deactivates when idle.
 */
export class Activation implements TimerHost, IdleCandidate {
  readonly #queue = new Fifo<Turn>();
  /** Created on first use: most actors never have timers or idle waiters, and there may be 100,000s of actors. */
  #timers: Map<string, ActiveTimer> | undefined;
  #idleWaiters: (() => void)[] | undefined;
  #busy = false;
  closed = false;
  /** A committed turn asked to end this activation as soon as its queue is empty. */
  deactivateWhenIdle = false;
  lastActive: EpochMs;
  idleWatched = false;

  constructor(
    readonly type: string,
    readonly id: string,
    readonly actor: Actor,
    readonly cache: ActorStateCache,
    private readonly host: ActivationHost,
  ) {
    this.lastActive = host.clock.now();
  }

  get idle(): boolean {
    return !this.#busy && this.#queue.length === 0;
  }

  enqueue(turn: Turn): void {
    this.#queue.push(turn);
    if (!this.#busy) void this.#drain();
  }

  /** Resolves when the queue is empty (immediately if it is). */
  whenIdle(): Promise<void> {
    return this.idle ? Promise.resolve() : new Promise((resolve) => (this.#idleWaiters ??= []).push(resolve));
  }

  /** Rejects everything still queued (the activation failed or is going away). */
  rejectQueued(err: unknown): void {
    for (const t of this.#queue.takeAll()) t.reject(err);
  }

  async #drain(): Promise<void> {
    this.#busy = true;
    for (let turn = this.#queue.shift(); turn; turn = this.#queue.shift()) {
      try {
        turn.resolve(await this.host.runTurn(this, turn));
      } catch (err) {
        turn.reject(err);
      }
      if (turn.kind !== 'timer') this.lastActive = this.host.clock.now();
    }
    this.#busy = false;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = undefined;
    for (const w of waiters ?? []) w();
    this.host.becameIdle(this);
  }

  setTimer(name: string, opts: TimerOptions): void {
    this.clearTimer(name);
    if (this.closed) return;
    const now = this.host.clock.now();
    const dueAt = now + (opts.dueTimeMs ?? 0);
    const info: TimerInfo = {
      name,
      dueAt,
      ...(opts.periodMs !== undefined && { periodMs: opts.periodMs }),
      ...(opts.data !== undefined && { data: opts.data }),
      ...(opts.dueTimeText !== undefined && { dueTimeText: opts.dueTimeText }),
      ...(opts.periodText !== undefined && { periodText: opts.periodText }),
      ...(opts.callback !== undefined && { callback: opts.callback }),
    };
    const timer: ActiveTimer = {
      info,
      expiresAt: opts.ttlMs === undefined ? undefined : now + opts.ttlMs,
      repetitionsLeft: opts.repetitions,
      handle: undefined,
    };
    (this.#timers ??= new Map()).set(name, timer);
    this.#armTimer(timer, opts.dueTimeMs ?? 0);
  }

  clearTimer(name: string): void {
    const t = this.#timers?.get(name);
    if (!t) return;
    if (t.handle !== undefined) this.host.clock.clearTimeout(t.handle);
    this.#timers?.delete(name);
  }

  clearAllTimers(): void {
    for (const name of [...(this.#timers?.keys() ?? [])]) this.clearTimer(name);
  }

  #armTimer(timer: ActiveTimer, delayMs: number): void {
    timer.handle = this.host.clock.setTimeout(() => this.#fireTimer(timer), Math.max(0, delayMs));
  }

  #fireTimer(timer: ActiveTimer): void {
    const name = timer.info.name;
    if (this.closed || this.#timers?.get(name) !== timer) return;
    if (timer.expiresAt !== undefined && this.host.clock.now() >= timer.expiresAt) {
      this.#timers.delete(name);
      return;
    }
    const settled = () => this.#afterTimerTurn(timer);
    this.enqueue({
      kind: 'timer',
      body: async (ctx) => {
        await this.actor.onTimer?.(name, timer.info.data, ctx, { ...timer.info, dueAt: this.host.clock.now() });
        return undefined;
      },
      resolve: settled,
      reject: (err) => {
        this.host.timerFailed(this, name, err);
        settled();
      },
    });
  }

  /** A periodic timer's next period starts when its callback turn has finished (callbacks never overlap). */
  #afterTimerTurn(timer: ActiveTimer): void {
    const name = timer.info.name;
    if (this.closed || this.#timers?.get(name) !== timer) return;
    if (timer.repetitionsLeft !== undefined) timer.repetitionsLeft -= 1;
    const period = timer.info.periodMs;
    const done = period === undefined || (timer.repetitionsLeft !== undefined && timer.repetitionsLeft <= 0);
    if (done || (timer.expiresAt !== undefined && this.host.clock.now() + period >= timer.expiresAt)) {
      this.#timers.delete(name);
      return;
    }
    this.#armTimer(timer, period);
  }
}
