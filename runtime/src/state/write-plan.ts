/**
 * ETag and concurrency rules, written once for every built-in store. A request becomes a `PlannedWrite` whose
 * `condition` says what must hold about the key's current version; stores only evaluate conditions. ETags are
 * the decimal version numbers the stores issue, so anything else is an invalid ETag.
 */
import { inSlices, mapInSlices } from '../util/event-loop.js';
import { StateEtagError, type DeleteRequest, type SetRequest, type TransactionOperation } from '../components/contracts/state-store.js';

/** What must hold about a key's current version for a write to go ahead. */
export type WriteCondition =
  | { readonly kind: 'any' }
  | { readonly kind: 'absent' }
  | { readonly kind: 'version'; readonly version: number };

/** A delete never requires absence: first-write only matters for deletes that carry an ETag. */
export type DeleteCondition = Exclude<WriteCondition, { kind: 'absent' }>;

export type PlannedWrite =
  /** `expiresAt`: epoch ms after which the value is gone (`ttlInSeconds`); absent: it never expires. */
  | { readonly kind: 'set'; readonly key: string; readonly value: Buffer; readonly condition: WriteCondition; readonly expiresAt?: number }
  | { readonly kind: 'delete'; readonly key: string; readonly condition: DeleteCondition };

/** Versions start at 1; 15 digits keep every version a safe integer in JavaScript and in Lua. */
const ETAG_PATTERN = /^[1-9][0-9]{0,14}$/;

export function formatEtag(version: number | string): string {
  return String(version);
}

function versionFromEtag(key: string, etag: string): number {
  if (!ETAG_PATTERN.test(etag)) throw new StateEtagError('invalid', key, `invalid etag value for key ${key}: '${etag}' is not an etag issued by this store`);
  return Number(etag);
}

/** An empty ETag means "no ETag", as in the reference system (`HasETag`). */
function hasEtag(etag: string | undefined): etag is string {
  return etag !== undefined && etag !== '';
}

/** `ttlInSeconds` as the state API validated it: a positive whole number of seconds, or -1 (never expires). */
export function ttlExpiry(metadata: Readonly<Record<string, string>> | undefined, now: number): number | undefined {
  const ttl = Number(metadata?.ttlInSeconds ?? -1);
  return ttl > 0 ? now + ttl * 1000 : undefined;
}

export function planSet(req: SetRequest): PlannedWrite {
  const condition: WriteCondition = hasEtag(req.etag)
    ? { kind: 'version', version: versionFromEtag(req.key, req.etag) }
    : req.options?.concurrency === 'first-write'
      ? { kind: 'absent' }
      : { kind: 'any' };
  const expiresAt = ttlExpiry(req.metadata, Date.now());
  return { kind: 'set', key: req.key, value: req.value, condition, ...(expiresAt !== undefined ? { expiresAt } : {}) };
}

export function planDelete(req: DeleteRequest): PlannedWrite {
  const condition: DeleteCondition = hasEtag(req.etag) ? { kind: 'version', version: versionFromEtag(req.key, req.etag) } : { kind: 'any' };
  return { kind: 'delete', key: req.key, condition };
}

/**
 * Plans every operation before any is applied, so an invalid ETag anywhere rejects the whole batch untouched.
 * In slices: a workflow turn may carry 200,000 operations.
 */
export function planOperations(ops: readonly TransactionOperation[]): Promise<PlannedWrite[]> {
  return mapInSlices(ops, (op) => (op.operation === 'upsert' ? planSet(op.request) : planDelete(op.request)));
}

export function conditionHolds(condition: WriteCondition, currentVersion: number | undefined): boolean {
  switch (condition.kind) {
    case 'any':
      return true;
    case 'absent':
      return currentVersion === undefined;
    case 'version':
      return currentVersion === condition.version;
  }
}

export function mismatch(write: PlannedWrite): StateEtagError {
  return write.condition.kind === 'absent'
    ? new StateEtagError('mismatch', write.key, `key ${write.key} already exists (first-write concurrency without an etag)`)
    : new StateEtagError('mismatch', write.key);
}

/** A key space a synchronous store exposes to `applyInOrder`; the caller provides atomicity (transaction or staging). */
export interface VersionedKeySpace {
  /** The key's stored version and whether it is still live (an expired value is stored but gone). */
  current(key: string): { version: number; live: boolean } | undefined;
  put(key: string, value: Buffer, version: number, expiresAt: number | undefined): void;
  remove(key: string): void;
  /**
   * Optional: a set with no condition in one step, its version the stored one + 1 (1 when there is none). A store
   * that has it skips `current` for such writes (SQLite: one statement a write instead of a read and a write).
   */
  putNext?(key: string, value: Buffer, expiresAt: number | undefined): void;
}

/**
 * Applies writes one after another, each seeing the effect of the ones before it; throws a mismatch at the
 * first failed condition (the caller then discards everything, which makes the batch atomic).
 */
export function applyInOrder(writes: readonly PlannedWrite[], space: VersionedKeySpace): void {
  for (const write of writes) {
    if (write.condition.kind === 'any' && space.putNext) {
      // Nothing to check: a set numbers on from what is stored, and removing a missing key changes nothing.
      if (write.kind === 'set') space.putNext(write.key, write.value, write.expiresAt);
      else space.remove(write.key);
      continue;
    }
    const current = space.current(write.key);
    // An expired value is absent to conditions, but numbering goes on: an ETag from before it expired stays stale.
    if (!conditionHolds(write.condition, current?.live ? current.version : undefined)) throw mismatch(write);
    if (write.kind === 'set') space.put(write.key, write.value, (current?.version ?? 0) + 1, write.expiresAt);
    else if (current !== undefined) space.remove(write.key);
  }
}

/** Unconditional writes to distinct keys: order among them does not matter, so a store may apply them in bulk. */
export interface UnconditionalBatch {
  readonly sets: { key: string; value: Buffer; expiresAt?: number }[];
  readonly deletes: string[];
}

/**
 * The writes in order, with each run of unconditional writes collapsed into one batch (the last write of a key in
 * the run wins: the run's intermediate states are never visible outside its transaction). Conditional writes
 * stay single, in place. For stores that pay a round trip per statement (PostgreSQL): a 100,000-write workflow
 * turn becomes a few statements instead of 100,000.
 */
export async function batchUnconditional(writes: readonly PlannedWrite[]): Promise<(PlannedWrite | UnconditionalBatch)[]> {
  const out: (PlannedWrite | UnconditionalBatch)[] = [];
  let run = new Map<string, PlannedWrite>();
  const flush = () => {
    if (run.size === 0) return;
    const sets: { key: string; value: Buffer; expiresAt?: number }[] = [];
    const deletes: string[] = [];
    for (const w of run.values()) {
      if (w.kind === 'set') sets.push({ key: w.key, value: w.value, ...(w.expiresAt !== undefined ? { expiresAt: w.expiresAt } : {}) });
      else deletes.push(w.key);
    }
    out.push({ sets, deletes });
    run = new Map();
  };
  await inSlices(writes, (w) => {
    if (w.condition.kind === 'any') {
      run.delete(w.key); // re-inserted: Map order follows the last write
      run.set(w.key, w);
    } else {
      flush();
      out.push(w);
    }
  });
  flush();
  return out;
}
