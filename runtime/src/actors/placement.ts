import { OWNERSHIP_PARTITIONS } from '../state/placement-store.js';
import type { Placement, PlacementHooks, PlacementResult } from './types.js';

/**
 * One host owns every actor: for stores that cannot arbitrate between hosts (SQLite, which a second process cannot
 * open, in-memory, pluggable stores). Multi-host placement lives in placement/store-placement.ts.
 */
export class SingleHostPlacement implements Placement {
  lookup(): PlacementResult {
    return { local: true };
  }

  async start(hooks: PlacementHooks): Promise<void> {
    await hooks.acquire(Array.from({ length: OWNERSHIP_PARTITIONS }, (_, p) => p));
  }

  async stop(): Promise<void> {}

  /** Nothing ever changes: waits out the timeout (callers only wait here after a failure they retry). */
  changed(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done); // a long-lived signal must not collect a listener per call
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  suspect(): void {}

  metadata(): Record<string, unknown> {
    return { placement: 'single-host' };
  }
}
