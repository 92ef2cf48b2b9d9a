import { ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';

/** A long-running part of a process. */
export interface Part {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Parts that need nothing of each other, started at once (their file reads and connections overlap) and stopped
 * in reverse order. When one fails to start, those that started are stopped and the first failure in their order
 * is thrown, whichever came first in time: the same error as when they started one after the other.
 */
export function together(name: string, parts: readonly Part[], log: Logger): Part {
  return {
    name,
    start: async () => {
      const results = await Promise.allSettled(parts.map((p) => p.start()));
      const failed = results.find((r) => r.status === 'rejected');
      if (failed === undefined) return;
      for (const [i, p] of [...parts.entries()].reverse()) {
        if (results[i]!.status === 'fulfilled') await stopQuietly(p, log);
      }
      throw failed.reason;
    },
    stop: async () => {
      for (const p of [...parts].reverse()) await stopQuietly(p, log);
    },
  };
}

async function stopQuietly(part: Part, log: Logger): Promise<void> {
  try {
    log.debug({ part: part.name }, 'stopping');
    await part.stop();
  } catch (err) {
    log.warn({ part: part.name, err: ensureError(err).message }, 'error while stopping');
  }
}

/** Starts parts in order and stops the started ones in reverse order; a failing stop does not block the rest. */
export class Lifecycle {
  readonly #parts: Part[] = [];
  readonly #started: Part[] = [];

  constructor(private readonly log: Logger) {}

  add(part: Part): this {
    this.#parts.push(part);
    return this;
  }

  async startAll(): Promise<void> {
    for (const part of this.#parts) {
      this.log.debug({ part: part.name }, 'starting');
      const t0 = performance.now();
      await part.start();
      this.#started.push(part);
      this.log.debug({ part: part.name, ms: Math.round((performance.now() - t0) * 10) / 10 }, 'started');
    }
  }

  async stopAll(): Promise<void> {
    for (const part of this.#started.splice(0).reverse()) await stopQuietly(part, this.log);
  }
}
