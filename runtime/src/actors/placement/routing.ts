import { RuntimeError, isRuntimeError } from '../../errors/runtime-error.js';
import type { Placement } from '../types.js';
import type { PlacementMetrics } from './metrics.js';

/** An attempt refused as not-owner after running at least this long was served by an owner, not refused by routing. */
const RAN_ON_OWNER_MS = 1_000;

/** Calls a method of another replica's internal server (the transport lives in src/internal). */
export interface PeerCaller {
  call<T>(address: string, method: string, body: unknown, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<T>;
}

export interface RouterOptions {
  readonly placement: Placement;
  readonly peers: PeerCaller;
  /** True when a peer call failed before the peer ran anything (not reachable): it is safe to try again. */
  readonly unreachable: (err: unknown) => boolean;
  /** How long a call waits for its actor's partition to have a reachable owner (failover, handover). */
  readonly routeTimeoutMs: number;
  readonly metrics?: PlacementMetrics;
}

/**
 * Runs a call where its actor lives: here when this replica owns it, else on the owner over the internal port.
 * A call that nothing ran yet — refused as not-owner (the partition moved) or sent to an owner that cannot be
 * reached — is retried after the placement view changes, until `routeTimeoutMs`. A call that reached its owner
 * and failed there keeps its error: every replica answers as the owner would.
 */
export class Router {
  constructor(private readonly o: RouterOptions) {}

  async run<T>(id: string, type: string, peerMethod: string, body: unknown, local: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let deadline = performance.now() + this.o.routeTimeoutMs;
    let lastError: unknown;
    for (;;) {
      const where = this.o.placement.lookup(type, id);
      const attemptStarted = performance.now();
      try {
        if (where.local) return await local();
        if (where.address !== undefined) {
          const out = await this.o.peers.call<T>(where.address, peerMethod, body, { ...(signal ? { signal } : {}) });
          this.o.metrics?.routedCalls.inc({ outcome: 'ok' });
          return out;
        }
      } catch (err) {
        const unreachable = !where.local && this.o.unreachable(err);
        if (!unreachable && !isRuntimeError(err, 'ERR_ACTOR_NOT_OWNER')) {
          if (!where.local) this.o.metrics?.routedCalls.inc({ outcome: 'error' });
          throw err;
        }
        lastError = err;
        // A call its owner ran for a while (a wait for a workflow) and ended because the partition moved: finding
        // the new owner gets the whole budget. Counted from the call's start, a wait longer than the budget
        // failed at once on a move (UNAVAILABLE right after a replica came back); a refusal takes milliseconds.
        const ran = performance.now() - attemptStarted;
        if (!unreachable && ran >= Math.min(RAN_ON_OWNER_MS, this.o.routeTimeoutMs / 2)) deadline = performance.now() + this.o.routeTimeoutMs;
        if (!where.local) this.o.metrics?.routedCalls.inc({ outcome: 'retried' });
        if (unreachable) this.o.placement.suspect();
      }
      const left = deadline - performance.now();
      if (left <= 0 || signal?.aborted) {
        const why = lastError instanceof Error ? lastError.message : 'no replica owns its partition yet';
        throw new RuntimeError('ERR_ACTOR_PLACEMENT_UNAVAILABLE', `actor ${type}/${id} has no reachable owner after ${this.o.routeTimeoutMs} ms: ${why}`);
      }
      await this.o.placement.changed(Math.min(left, 1_000), signal);
    }
  }
}
