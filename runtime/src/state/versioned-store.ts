import type { Fence } from './placement-store.js';
import { formatEtag, planDelete, planOperations, planSet, type PlannedWrite } from './write-plan.js';
import type {
  BulkGetItem,
  DeleteRequest,
  GetRequest,
  GetResponse,
  SetRequest,
  StateFeature,
  StateMetadata,
  TransactionOperation,
  TransactionalStateStore,
} from '../components/contracts/state-store.js';

export interface StoredValue {
  readonly value: Buffer;
  /** Stores keep versions as numbers or numeric strings (PostgreSQL BIGINT). */
  readonly version: number | string;
  /** Epoch ms after which the value is gone (`ttlInSeconds`); null or absent: never. */
  readonly expiresAt?: number | string | null;
}

/** The stored value unless it expired: expired values read as absent, whatever a sweep has removed yet. */
function live(found: StoredValue | undefined, now: number): StoredValue | undefined {
  return found && (found.expiresAt === undefined || found.expiresAt === null || Number(found.expiresAt) > now) ? found : undefined;
}

/** `ttlExpireTime` (RFC 3339), as Dapr answers it for a value saved with `ttlInSeconds`. */
function ttlMetadata(found: StoredValue): StateMetadata | undefined {
  return found.expiresAt === undefined || found.expiresAt === null ? undefined : { ttlExpireTime: new Date(Number(found.expiresAt)).toISOString() };
}

/** Fences on one app's placement partitions, checked in the same atomic operation as the writes. */
export interface FencedScope {
  readonly appId: string;
  readonly fences: readonly Fence[];
}

const BUILT_IN_FEATURES: readonly StateFeature[] = ['ETAG', 'TRANSACTIONAL', 'ACTOR', 'TTL'];

/**
 * The shared shape of every built-in store: a key → (value, version) map. Subclasses read and apply planned
 * writes atomically; the API surface, ETag rules and bulk semantics live here once.
 */
export abstract class VersionedStateStore implements TransactionalStateStore {
  protected abstract read(key: string): Promise<StoredValue | undefined>;
  /** Same order and length as `keys`. */
  protected abstract readMany(keys: readonly string[]): Promise<(StoredValue | undefined)[]>;
  /**
   * Applies every write in order, or none (throws `StateEtagError('mismatch')` on a failed condition). With
   * `fenced` (multi-host stores only) it first checks every fence and throws `FencedError` when one fails.
   */
  protected abstract applyAtomically(writes: readonly PlannedWrite[], fenced?: FencedScope): Promise<void>;
  abstract close(): Promise<void>;

  features(): readonly StateFeature[] {
    return BUILT_IN_FEATURES;
  }

  async get(req: GetRequest): Promise<GetResponse | undefined> {
    const found = live(await this.read(req.key), Date.now());
    if (!found) return undefined;
    const metadata = ttlMetadata(found);
    return { data: found.value, etag: formatEtag(found.version), ...(metadata ? { metadata } : {}) };
  }

  async bulkGet(reqs: readonly GetRequest[]): Promise<BulkGetItem[]> {
    if (reqs.length === 0) return [];
    const found = await this.readMany(reqs.map((r) => r.key));
    const now = Date.now();
    return reqs.map((r, i) => {
      const item = live(found[i], now);
      if (!item) return { key: r.key };
      const metadata = ttlMetadata(item);
      return { key: r.key, data: item.value, etag: formatEtag(item.version), ...(metadata ? { metadata } : {}) };
    });
  }

  async set(req: SetRequest): Promise<void> {
    await this.applyAtomically([planSet(req)]);
  }

  async delete(req: DeleteRequest): Promise<void> {
    await this.applyAtomically([planDelete(req)]);
  }

  async bulkSet(reqs: readonly SetRequest[]): Promise<void> {
    const writes = reqs.map(planSet);
    if (writes.length > 0) await this.applyAtomically(writes);
  }

  async bulkDelete(reqs: readonly DeleteRequest[]): Promise<void> {
    const writes = reqs.map(planDelete);
    if (writes.length > 0) await this.applyAtomically(writes);
  }

  async transact(ops: readonly TransactionOperation[], _metadata?: StateMetadata): Promise<void> {
    const writes = await planOperations(ops);
    if (writes.length > 0) await this.applyAtomically(writes);
  }

  /** `MultiHostStore.transactFenced` for the stores that can check fences; without fences it is `transact`. */
  protected async applyFenced(appId: string, ops: readonly TransactionOperation[], fences: readonly Fence[]): Promise<void> {
    const writes = await planOperations(ops);
    if (fences.length > 0) await this.applyAtomically(writes, { appId, fences });
    else if (writes.length > 0) await this.applyAtomically(writes);
  }
}
