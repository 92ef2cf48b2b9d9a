/**
 * Multi-host placement: several svcd replicas of one app form ONE logical actor host on a shared actor state
 * store (docs/actors.md "Placement"). No consensus of our own: the store's atomic conditional writes are the only
 * arbiter, and every turn commit carries the epoch of its actor's partition, checked inside the same transaction
 * (fencing).
 *
 * Model:
 * - Every actor id hashes onto one of OWNERSHIP_PARTITIONS partitions (the same hash as the reminder partitions,
 *   so each reminder partition document belongs to exactly one ownership partition).
 * - Each host holds a lease record (its address, actor types, connected workflow workers), renewed every
 *   heartbeat; a host whose lease lapsed is dead.
 * - Each partition has one row (owner host id or none, epoch). A host claims a partition only when it has no
 *   owner, or its owner has no live lease, or its owner's lease carries this host's own address (a previous
 *   incarnation: the port is ours now). Every claim bumps the epoch.
 */
import type { TransactionOperation, TransactionalStateStore, StateStore } from '../components/contracts/state-store.js';

/**
 * Ownership partitions per app. It divides every reminder partition count ever stored (64, 1024), so the
 * reminder partition document r belongs to ownership partition r % OWNERSHIP_PARTITIONS.
 */
export const OWNERSHIP_PARTITIONS = 64;

/** What a host publishes about itself in its lease. */
export interface HostRecord {
  /** Random per process start. */
  readonly hostId: string;
  /** `host:port` of its internal gRPC server, as peers dial it. */
  readonly address: string;
  readonly actorTypes: readonly string[];
  /** Workflow SDK workers connected to this host right now. */
  readonly workers: number;
  /** Epoch ms of the process start (for display). */
  readonly startedAt: number;
}

/** A live host as the store sees it. */
export interface HostLease extends HostRecord {
  /** Milliseconds left on its lease, by the store's clock. */
  readonly expiresInMs: number;
}

export interface PartitionOwner {
  readonly partition: number;
  /** Host id, or null when released / never claimed. */
  readonly owner: string | null;
  /** Bumped by every claim; 0 for a partition never claimed. */
  readonly epoch: number;
}

/** One consistent read of the placement tables. */
export interface PlacementView {
  /** Live hosts only (lease not expired), including the caller. */
  readonly hosts: readonly HostLease[];
  /** Exactly OWNERSHIP_PARTITIONS entries, index = partition. */
  readonly partitions: readonly PartitionOwner[];
}

/** "Partition `partition` is still owned by `owner` at `epoch`": checked inside a transaction. */
export interface Fence {
  readonly partition: number;
  readonly owner: string;
  readonly epoch: number;
}

/** The placement tables of one app on one store. Every method is one atomic store operation. */
export interface PlacementBackend {
  /** `redis` or `postgresql`, for logs and metadata. */
  readonly kind: string;
  /**
   * Creates what is missing (tables, rows) and returns the app's internal token: a random secret created by the
   * first host of the app and shared through the store, which authenticates calls between replicas. Call it
   * before any other method and before the store's `transactFenced` for this app (PostgreSQL creates the tables
   * here). Safe when several hosts start at once: they all get the same token.
   */
  init(): Promise<{ token: string }>;
  /** Upserts this host's lease (expiring `ttlMs` from now by the store's clock) and returns the view, atomically. */
  heartbeat(host: HostRecord, ttlMs: number): Promise<PlacementView>;
  /**
   * Claims those of `partitions` that are free for `host` (no owner; owner without a live lease; or owner whose
   * lease has `host.address`), bumping each claimed partition's epoch. Returns what it claimed, by partition.
   * A partition `host` already holds counts as free too (its own lease has its address): claiming it again bumps
   * the epoch and so fences the host's own in-flight turns, so claim only what you do not hold. On PostgreSQL a
   * claim waits for the commit of every fenced transaction holding that partition.
   */
  claim(host: Pick<HostRecord, 'hostId' | 'address'>, partitions: readonly number[]): Promise<PartitionOwner[]>;
  /** Sets the owner to none (epoch kept) of each fenced partition still held by that owner at that epoch. */
  release(fences: readonly Fence[]): Promise<void>;
  /** Deletes the host's lease (graceful stop, after releasing its partitions). */
  leave(hostId: string): Promise<void>;
  /** Wakes every subscriber of this app (after a claim, release, join, leave or workers change). */
  publish(): Promise<void>;
  /**
   * `onChange` runs on every publish by any host of this app (including this one); resolves once listening. The
   * listening connection reconnects by itself and then runs `onChange` once, for the publishes it missed.
   */
  subscribe(onChange: () => void): Promise<void>;
  /** Closes the connections this backend opened (the store closes its backends too). */
  close(): Promise<void>;
}

/** A transaction failed because a fence no longer holds: this host lost those partitions; nothing was applied. */
export class FencedError extends Error {
  override readonly name = 'FencedError';
  constructor(readonly partitions: readonly number[]) {
    super(`partition ownership lost (partitions ${partitions.join(', ')}): the turn was not committed`);
  }
}

/** A transactional store that can arbitrate between hosts (built-in Redis and PostgreSQL). */
export interface MultiHostStore extends TransactionalStateStore {
  /** The placement tables of `appId` on this store (same server, same database). */
  placementBackend(appId: string): PlacementBackend;
  /**
   * `transact` that checks every fence (on the partitions of `appId`, the app of `placementBackend(appId)`) in the
   * same atomic operation first; when one fails it applies nothing and throws `FencedError` naming the failed
   * partitions. ETag failures are reported as by `transact`, but only when every fence holds. Without fences it is
   * `transact`; with fences and no operations it only checks them.
   */
  transactFenced(appId: string, ops: readonly TransactionOperation[], fences: readonly Fence[]): Promise<void>;
}

export function isMultiHostStore(store: StateStore): store is MultiHostStore {
  const s = store as Partial<MultiHostStore>;
  return typeof s.placementBackend === 'function' && typeof s.transactFenced === 'function';
}
