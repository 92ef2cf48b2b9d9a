/**
 * `bindings.cron`: an input binding that fires on a schedule (metadata `schedule`, see util/cron-schedule.ts); each
 * firing is delivered to the app with an empty body. A firing due while the previous one is still being delivered
 * is skipped (logged), so a slow app does not pile deliveries up.
 */
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { InvalidScheduleError, parseSchedule, type Schedule } from '../util/cron-schedule.js';
import type { InputBinding, InputHandler } from '../components/contracts/bindings.js';

/** setTimeout's longest wait; a later firing is reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class CronBinding implements InputBinding {
  readonly #timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly schedule: Schedule,
    private readonly scheduleText: string,
    private readonly log: Logger,
  ) {}

  static fromMetadata(get: (name: string) => string | undefined, log: Logger): CronBinding {
    const text = get('schedule');
    if (!text) throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', 'metadata schedule is required (for example "@every 15s" or "0 30 * * * *")');
    try {
      return new CronBinding(parseSchedule(text), text, log);
    } catch (err) {
      if (err instanceof InvalidScheduleError) throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata ${err.message}`);
      throw err;
    }
  }

  read(handler: InputHandler): Promise<{ close(): Promise<void> }> {
    let closed = false;
    let running: Promise<unknown> | undefined;
    let timer: NodeJS.Timeout | undefined;
    const arm = (at: number) => {
      if (closed) return;
      timer = setTimeout(() => {
        this.#timers.delete(timer!);
        if (Date.now() < at) return arm(at); // a wait longer than one timer allows
        if (running) this.log.warn({ schedule: this.scheduleText }, 'cron firing skipped: the previous one is still being delivered');
        else running = handler({ data: Buffer.alloc(0), metadata: { schedule: this.scheduleText } }).catch(() => undefined).finally(() => (running = undefined));
        arm(this.schedule.next(Date.now()));
      }, Math.min(Math.max(0, at - Date.now()), MAX_TIMER_MS));
      this.#timers.add(timer);
    };
    arm(this.schedule.next(Date.now()));
    return Promise.resolve({
      close: async () => {
        closed = true;
        clearTimeout(timer);
        await running;
      },
    });
  }

  close(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    return Promise.resolve();
  }
}
