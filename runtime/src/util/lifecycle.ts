import { ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';

/** A long-running part of a process. */
export interface Part {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
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
    for (const part of this.#started.splice(0).reverse()) {
      try {
        this.log.debug({ part: part.name }, 'stopping');
        await part.stop();
      } catch (err) {
        this.log.warn({ part: part.name, err: ensureError(err).message }, 'error while stopping');
      }
    }
  }
}
