import type { Placement, PlacementResult } from './types.js';

/**
 * One host owns every actor. Multi-host placement (leases and membership in PostgreSQL or Redis) plugs in
 * behind the same interface; see docs/actors.md.
 */
export class SingleHostPlacement implements Placement {
  lookup(): PlacementResult {
    return { local: true };
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}
}
