import { ensureError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import type { Placement, PlacementHooks, PlacementResult } from '../types.js';
import { desiredOwners } from './assignment.js';
import type { PlacementMetrics } from './metrics.js';
import { ownershipPartitionOf } from './partitions.js';
import { OWNERSHIP_PARTITIONS, type Fence, type HostLease, type HostRecord, type PartitionOwner, type PlacementBackend, type PlacementView } from '../../state/placement-store.js';

export interface StorePlacementOptions {
  readonly backend: PlacementBackend;
  /** This host's record as of now (the worker count changes). */
  readonly host: () => HostRecord;
  readonly leaseTtlMs: number;
  readonly heartbeatIntervalMs: number;
  readonly log: Logger;
  readonly metrics?: PlacementMetrics;
}

/**
 * Multi-host placement on the actor store (docs/actors.md "Placement"). Every heartbeat renews this host's lease
 * and reads the view in one store round trip, then: drops partitions taken over by others (`lost`), hands over
 * partitions another live host should own (`release`: drain, then clear the owner), and claims free partitions
 * this host should own (`acquire`: load their reminders, then serve). Changes are published through the store
 * so every host re-reads at once instead of waiting for its next heartbeat.
 *
 * A host serves a partition only while its lease is fresh by its own monotonic clock (renewed less than the TTL
 * ago, counted from when the renewal was sent): a host that was paused or cut off stops serving on its own before
 * anyone can take over, and its late commits fail the epoch check in the store (fencing).
 */
export class StorePlacement implements Placement {
  readonly #o: StorePlacementOptions;
  #hooks: PlacementHooks | undefined;
  #view: PlacementView | undefined;
  #hosts = new Map<string, HostLease>();
  /** Partitions this host serves (acquired), with the epoch of its claim. */
  readonly #owned = new Map<number, number>();
  /** Owned partitions being handed over: still fenced for in-flight commits, no longer local for new calls. */
  readonly #leaving = new Set<number>();
  /** When each free partition was first seen free (a free partition nobody wants is claimed after one TTL). */
  readonly #freeSince = new Map<number, number>();
  #renewedAt = -Infinity;
  #running = false;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #tickAgain = false;
  #waiters = new Set<() => void>();
  /** The handover in progress (one at a time); heartbeats go on meanwhile, so a long drain never lets the lease lapse. */
  #handover: Promise<void> | undefined;
  #lastWarnAt = 0;
  /** The worker count other replicas last heard of (they hand work here only while it is above 0). */
  #announcedWorkers = 0;

  readonly fencing = {
    fenceFor: (actorId: string): Fence | undefined => {
      const partition = ownershipPartitionOf(actorId);
      const epoch = this.#owned.get(partition);
      return epoch === undefined ? undefined : { partition, owner: this.#o.host().hostId, epoch };
    },
  };

  constructor(opts: StorePlacementOptions) {
    this.#o = opts;
  }

  get ownedCount(): number {
    return this.#owned.size;
  }

  get hostCount(): number {
    return this.#hosts.size;
  }

  lookup(_type: string, id: string): PlacementResult {
    const p = ownershipPartitionOf(id);
    if (this.#owned.has(p) && !this.#leaving.has(p) && this.#fresh()) return { local: true };
    const owner = this.#view?.partitions[p]?.owner;
    if (!owner || owner === this.#o.host().hostId) return { local: false };
    const host = this.#hosts.get(owner);
    return host ? { local: false, address: host.address } : { local: false };
  }

  async start(hooks: PlacementHooks): Promise<void> {
    this.#hooks = hooks;
    this.#running = true;
    await this.#o.backend.subscribe(() => this.#kick());
    await this.#runTick();
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#ticking;
    await this.#handover;
    const me = this.#o.host().hostId;
    const partitions = [...this.#owned.keys()];
    try {
      if (partitions.length > 0) {
        for (const p of partitions) this.#leaving.add(p);
        await this.#hooks?.release(partitions);
        await this.#o.backend.release(partitions.map((p) => ({ partition: p, owner: me, epoch: this.#owned.get(p)! })));
        this.#owned.clear();
        this.#o.log.info({ partitions, stopping: true }, 'placement: partitions handed over');
      }
      await this.#o.backend.leave(me);
      await this.#o.backend.publish();
    } catch (err) {
      this.#o.log.warn({ err: ensureError(err).message }, 'placement: handing partitions over at stop failed; the other replicas take them when the lease lapses');
    } finally {
      this.#wake();
      await this.#o.backend.close().catch(() => undefined);
    }
  }

  /** Other live replicas with workflow workers connected. */
  peersWithWorkers(): { hostId: string; address: string }[] {
    const me = this.#o.host().hostId;
    return [...this.#hosts.values()].filter((h) => h.hostId !== me && h.workers > 0).map((h) => ({ hostId: h.hostId, address: h.address }));
  }

  changed(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.#waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  suspect(): void {
    this.#kick();
  }

  metadata(): Record<string, unknown> {
    const me = this.#o.host();
    const owners = this.#view?.partitions ?? [];
    return {
      placement: 'multi-host',
      placementStore: this.#o.backend.kind,
      hostId: me.hostId,
      address: me.address,
      partitions: [...this.#owned].sort(([a], [b]) => a - b).map(([partition, epoch]) => ({ partition, epoch, ...(this.#leaving.has(partition) ? { leaving: true } : {}) })),
      peers: [...this.#hosts.values()].map((h) => ({
        hostId: h.hostId,
        address: h.address,
        workers: h.workers,
        actorTypes: h.actorTypes,
        partitions: owners.filter((o) => o.owner === h.hostId).length,
        leaseExpiresInMs: h.expiresInMs,
      })),
    };
  }

  // ---- the heartbeat ----

  #fresh(): boolean {
    return performance.now() - this.#renewedAt < this.#o.leaseTtlMs;
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    if (!this.#running) return;
    this.#timer = setTimeout(() => this.#kick(), this.#o.heartbeatIntervalMs);
  }

  /** Runs a tick now, or right after the one in flight (ticks never overlap; kicks during one coalesce). */
  #kick(): void {
    if (!this.#running) return;
    if (this.#ticking) {
      this.#tickAgain = true;
      return;
    }
    void this.#runTick().finally(() => this.#schedule());
  }

  async #runTick(): Promise<void> {
    do {
      this.#tickAgain = false;
      this.#ticking = this.#tick().catch((err: unknown) => this.#warn('placement: rebalancing failed; retrying at the next heartbeat', err));
      await this.#ticking;
      this.#ticking = undefined;
    } while (this.#tickAgain && this.#running);
  }

  async #tick(): Promise<void> {
    const sentAt = performance.now();
    const record = this.#o.host();
    let view: PlacementView;
    try {
      view = await this.#o.backend.heartbeat(record, this.#o.leaseTtlMs);
    } catch (err) {
      this.#warn('placement: renewing the lease failed', err);
      if (!this.#fresh() && this.#owned.size > 0) this.#lose([...this.#owned.keys()], 'the lease could not be renewed within its TTL');
      return;
    }
    this.#renewedAt = sentAt;
    this.#setView(view);
    if (record.workers !== this.#announcedWorkers) {
      this.#announcedWorkers = record.workers;
      await this.#o.backend.publish();
    }
    const me = this.#o.host().hostId;
    const lost = [...this.#owned].filter(([p, epoch]) => view.partitions[p]?.owner !== me || view.partitions[p]?.epoch !== epoch).map(([p]) => p);
    if (lost.length > 0) this.#lose(lost, 'another replica owns them now');

    // A lease with our address but another id is a previous incarnation of this host (its port is ours): not live.
    const live = [...this.#hosts.values()].filter((h) => h.hostId === me || h.address !== record.address).map((h) => h.hostId);
    const desired = desiredOwners(live, OWNERSHIP_PARTITIONS);
    const handOver = [...this.#owned.keys()].filter((p) => desired[p] !== me && !this.#leaving.has(p));
    if (handOver.length > 0 && !this.#handover) {
      this.#handover = this.#release(handOver)
        .catch((err: unknown) => this.#warn('placement: handing partitions over failed; retrying at the next heartbeat', err))
        .finally(() => {
          this.#handover = undefined;
          for (const p of handOver) this.#leaving.delete(p);
          this.#kick();
        });
    }
    await this.#claim(view, desired);
    this.#wake();
  }

  #setView(view: PlacementView): void {
    this.#view = view;
    this.#hosts = new Map(view.hosts.map((h) => [h.hostId, h]));
    this.#wake();
  }

  #lose(partitions: readonly number[], why: string): void {
    for (const p of partitions) {
      this.#owned.delete(p);
      this.#leaving.delete(p);
    }
    this.#o.metrics?.partitionsLost.inc(partitions.length);
    this.#o.log.warn({ partitions, why }, 'placement: partition ownership lost; their actors were dropped and nothing more of them is committed here');
    this.#hooks?.lost(partitions);
    this.#wake();
  }

  /**
   * Hands partitions over: no new turns (lookup says not local), queued turns drain — for at most one lease TTL;
   * a turn still running after that cannot commit once the new owner claimed (fencing) — then the owner is cleared.
   */
  async #release(partitions: readonly number[]): Promise<void> {
    const me = this.#o.host().hostId;
    for (const p of partitions) this.#leaving.add(p);
    this.#wake(); // callers waiting on these partitions re-route (they wait for the new owner)
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#o.leaseTtlMs)));
    await Promise.race([this.#hooks?.release(partitions), bound]);
    clearTimeout(timer);
    const fences = partitions.filter((p) => this.#owned.has(p)).map((p) => ({ partition: p, owner: me, epoch: this.#owned.get(p)! }));
    // Forget them first: from here on nothing of these partitions may be served or committed here.
    for (const p of partitions) this.#owned.delete(p);
    this.#hooks?.lost(partitions);
    await this.#o.backend.release(fences);
    this.#o.log.info({ partitions }, 'placement: partitions handed over');
    await this.#o.backend.publish();
  }

  async #claim(view: PlacementView, desired: readonly string[]): Promise<void> {
    const me = this.#o.host();
    const now = performance.now();
    const candidates: number[] = [];
    for (const row of view.partitions) {
      const p = row.partition;
      if (!this.#isFree(row, me)) {
        this.#freeSince.delete(p);
        continue;
      }
      if (!this.#freeSince.has(p)) this.#freeSince.set(p, now);
      if (this.#owned.has(p)) continue;
      // The host that should own it claims at once; anybody claims a partition left free for a whole TTL (views
      // can differ for a moment, and no partition may stay without an owner).
      if (desired[p] === me.hostId || now - this.#freeSince.get(p)! >= this.#o.leaseTtlMs) candidates.push(p);
    }
    if (candidates.length === 0) return;
    const claimed = await this.#o.backend.claim(me, candidates);
    if (claimed.length === 0) return;
    const partitions = claimed.map((c) => c.partition);
    this.#recordClaims(claimed);
    await this.#hooks?.acquire(partitions);
    for (const c of claimed) this.#owned.set(c.partition, c.epoch);
    this.#o.log.info({ partitions }, 'placement: partitions acquired');
    await this.#o.backend.publish();
  }

  /** Free for `me`: no owner, an owner without a live lease, or a previous incarnation of this host (our address). */
  #isFree(row: PartitionOwner, me: HostRecord): boolean {
    if (row.owner === null) return true;
    if (row.owner === me.hostId) return !this.#owned.has(row.partition);
    const owner = this.#hosts.get(row.owner);
    return !owner || owner.address === me.address;
  }

  #recordClaims(claimed: readonly PartitionOwner[]): void {
    const view = this.#view;
    if (!view) return;
    const partitions = [...view.partitions];
    for (const c of claimed) partitions[c.partition] = c;
    this.#view = { ...view, partitions };
  }

  #wake(): void {
    for (const w of [...this.#waiters]) w();
  }

  #warn(message: string, err: unknown): void {
    // A store outage would otherwise log every heartbeat.
    const now = performance.now();
    if (now - this.#lastWarnAt < 5_000) return;
    this.#lastWarnAt = now;
    this.#o.log.warn({ err: ensureError(err).message }, message);
  }
}
