import type { Redis } from 'ioredis';
import { closeRedis, connectRedis, duplicateRedis, type RedisStoreOptions } from '../stores/redis-connection.js';
import { RedisWriteCoalescer } from './redis-coalescer.js';
import { inSlices, YIELD_SLICE, yieldToEventLoop } from '../util/event-loop.js';
import { partitionValue, redisPlacementKeys, RedisPlacementBackend } from './redis-placement.js';
import { FencedError, type Fence, type MultiHostStore, type PlacementBackend } from './placement-store.js';
import type { KeyListingStore, KeyPage, ListedKey, TransactionOperation } from '../components/contracts/state-store.js';
import { mismatch, type PlannedWrite } from './write-plan.js';
import { VersionedStateStore, type FencedScope, type StoredValue } from './versioned-store.js';

const EMPTY = Buffer.alloc(0);

/** Condition letters in the packed write headers of APPLY_WRITES_LUA. */
const CONDITION_CODES = { any: 'a', absent: 'b', version: 'v' } as const;


/**
 * Checks the fences, then every write's condition against the current versions (updated as the batch goes, so
 * later writes see earlier ones), then applies all of them; or applies none and returns why.
 * Data layout per key: a hash with fields `data` and `version`, the same as the reference system's Redis store.
 * A key under a listed prefix is also a member of that prefix's sorted set (all scores 0, so ordered by bytes),
 * added and removed by the same script as the key itself.
 * KEYS: the sorted sets of listed prefixes the writes touch, then the app's placement partitions hash when there are
 * fences. The written keys themselves travel packed, not in KEYS (which only Redis Cluster needs; this store does
 * not support it): a 100,000-write turn is a handful of arguments, where one per key and value cost svcd a
 * synchronous encoding step of half a second.
 * ARGV: the number of fences; per fence: partition, expected `owner:epoch`; then the write headers as ONE string,
 * `<kind><condition><set>,<version>,<expires>,<key bytes>,<value bytes>;` per write — kind `s`(et)/`d`(elete),
 * condition `a`(ny)/`b` (absent)/`v`(ersion), the index of its sorted set in KEYS (0: not listed), the expected
 * version (or nothing), the epoch ms the value expires at (or nothing: it never does) and the byte lengths of its
 * key and value — then all keys concatenated, then all values concatenated. Expiry is Redis's own (PEXPIREAT): an
 * expired key is gone, so its next version starts again at 1.
 * Returns 0 when applied, the 1-based index of the first failed write, or the list of failed fence partitions.
 */
const APPLY_WRITES_LUA = `
local fences = tonumber(ARGV[1])
if fences > 0 then
  local failed = {}
  for f = 1, fences do
    if redis.call('HGET', KEYS[#KEYS], ARGV[f * 2]) ~= ARGV[f * 2 + 1] then failed[#failed + 1] = tonumber(ARGV[f * 2]) end
  end
  if #failed > 0 then return failed end
end
local headers, keyBlob, valueBlob = ARGV[2 + fences * 2], ARGV[3 + fences * 2], ARGV[4 + fences * 2]
local kinds, listedIn, keys, values, newVersions, versions, expires = {}, {}, {}, {}, {}, {}, {}
local i, keyAt, valueAt = 0, 1, 1
for kind, cond, set, want, expiresAt, keyLen, valueLen in string.gmatch(headers, '(%a)(%a)(%d+),(%d*),(%d*),(%d+),(%d+);') do
  i = i + 1
  local key = string.sub(keyBlob, keyAt, keyAt + tonumber(keyLen) - 1)
  keyAt = keyAt + tonumber(keyLen)
  values[i] = string.sub(valueBlob, valueAt, valueAt + tonumber(valueLen) - 1)
  valueAt = valueAt + tonumber(valueLen)
  local cur = versions[key]
  if cur == nil then
    local stored = redis.call('HGET', key, 'version')
    if stored then cur = tonumber(stored) else cur = false end
  end
  if cond == 'b' and cur ~= false then return i end
  if cond == 'v' and cur ~= tonumber(want) then return i end
  if kind == 's' then
    cur = (cur or 0) + 1
    newVersions[i] = cur
  else
    cur = false
  end
  versions[key] = cur
  keys[i], kinds[i], listedIn[i], expires[i] = key, kind, tonumber(set), expiresAt
end
for w = 1, i do
  if kinds[w] == 's' then
    redis.call('HSET', keys[w], 'data', values[w], 'version', newVersions[w])
    if expires[w] ~= '' then redis.call('PEXPIREAT', keys[w], expires[w]) else redis.call('PERSIST', keys[w]) end
    if listedIn[w] > 0 then redis.call('ZADD', KEYS[listedIn[w]], 0, keys[w]) end
  else
    redis.call('DEL', keys[w])
    if listedIn[w] > 0 then redis.call('ZREM', KEYS[listedIn[w]], keys[w]) end
  end
end
return 0
`;

/**
 * One page of a listed prefix and the values of its keys, in one atomic read. KEYS: the prefix's sorted set.
 * ARGV: the lower bound (`-`, or `(<key>` for keys after that key), the page size. Returns key, value, key, ...
 * The values are read by key inside the script: keys a script reads should be in KEYS, which only matters to
 * Redis Cluster, which this store does not support.
 */
const LIST_KEYS_LUA = `
local members = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], '+', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, key in ipairs(members) do
  local data = redis.call('HGET', key, 'data')
  if data then
    out[#out + 1] = key
    out[#out + 1] = data
  end
end
return out
`;

interface ApplyWritesCommand {
  /** Keys and arguments as ONE array: ioredis flattens it, where a spread call overflows the stack past ~25,000 writes. */
  svcApplyWrites(numKeys: number, keysAndArgs: (string | Buffer | number)[]): Promise<number | number[]>;
  svcListKeysBuffer(numKeys: number, set: string, min: string, limit: number): Promise<Buffer[]>;
}

/**
 * `state.redis`: one hash per key; every write (single, bulk or transaction) is one atomic Lua script. Multi-host:
 * the placement keys live on the same server, and fences are checked inside the write script.
 */
export class RedisStateStore extends VersionedStateStore implements MultiHostStore, KeyListingStore {
  readonly #backends: RedisPlacementBackend[] = [];
  /** Listed prefixes; each one's sorted set is the Redis key named like the prefix itself (never a stored key). */
  readonly #listed = new Set<string>();
  readonly #writes: RedisWriteCoalescer;

  private constructor(private readonly redis: Redis & ApplyWritesCommand) {
    super();
    this.#writes = new RedisWriteCoalescer(redis);
  }

  /** Connects and verifies the server answers, so a wrong address fails the component init with the reason. */
  static async connect(opts: RedisStoreOptions): Promise<RedisStateStore> {
    const redis = await connectRedis(opts);
    redis.defineCommand('svcApplyWrites', { lua: APPLY_WRITES_LUA });
    redis.defineCommand('svcListKeys', { lua: LIST_KEYS_LUA });
    return new RedisStateStore(redis as Redis & ApplyWritesCommand);
  }

  async pingServer(): Promise<void> {
    // While reconnecting, commands wait in the offline queue: say so at once instead.
    if (this.redis.status !== 'ready') throw new Error(`cannot reach Redis: connection is ${this.redis.status}`);
    await this.redis.ping().catch((err: unknown) => {
      throw new Error(`cannot reach Redis: ${(err as Error).message}`, { cause: err });
    });
  }

  protected async read(key: string): Promise<StoredValue | undefined> {
    return toStored(await this.#writes.send(() => this.redis.hmgetBuffer(key, 'data', 'version')));
  }

  protected async readMany(keys: readonly string[]): Promise<(StoredValue | undefined)[]> {
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.hmgetBuffer(key, 'data', 'version');
    const results = (await this.#writes.send(() => pipeline.exec())) ?? [];
    return results.map(([err, fields]) => {
      if (err) throw err;
      return toStored(fields as (Buffer | null)[]);
    });
  }

  protected async applyAtomically(writes: readonly PlannedWrite[], fenced?: FencedScope): Promise<void> {
    const sets = new Map<string, number>();
    const setOf = (key: string): number => {
      const prefix = this.#listedPrefixOf(key);
      if (prefix === undefined) return 0;
      let index = sets.get(prefix);
      if (index === undefined) sets.set(prefix, (index = sets.size + 1));
      return index;
    };
    // Packed in slices, yielding between them: a fan-out's turn writes 100,000 keys. Keys go as one buffer (not
    // one per key), headers as another, values as a third. Each slice's text becomes bytes at once: a string grown
    // across the whole turn was a tree of 100,000 parts that flattening and encoding walked in one synchronous step.
    const headerBytes: Buffer[] = [];
    const keyBytes: Buffer[] = [];
    const valueBytes: Buffer[] = [];
    let valueLength = 0;
    for (let from = 0; from < writes.length; from += YIELD_SLICE) {
      if (from > 0) await yieldToEventLoop();
      let headers = '';
      let keyText = '';
      for (const w of writes.slice(from, from + YIELD_SLICE)) {
        const value = w.kind === 'set' ? w.value : EMPTY;
        const want = w.condition.kind === 'version' ? String(w.condition.version) : '';
        const expires = w.kind === 'set' && w.expiresAt !== undefined ? String(w.expiresAt) : '';
        headers += `${w.kind === 'set' ? 's' : 'd'}${CONDITION_CODES[w.condition.kind]}${setOf(w.key)},${want},${expires},${Buffer.byteLength(w.key)},${value.length};`;
        keyText += w.key;
        valueBytes.push(value);
        valueLength += value.length;
      }
      headerBytes.push(Buffer.from(headers));
      keyBytes.push(Buffer.from(keyText));
    }
    const keys: string[] = [...sets.keys()];
    const args: (string | number | Buffer)[] = [fenced?.fences.length ?? 0];
    if (fenced) {
      keys.push(redisPlacementKeys(fenced.appId).partitions);
      for (const f of fenced.fences) args.push(f.partition, partitionValue(f.owner, f.epoch));
    }
    // A turn of one slice (nearly all) stays synchronous up to its send, as a single write always was.
    const values = valueBytes.length > YIELD_SLICE ? await joinInSlices(valueBytes, valueLength) : Buffer.concat(valueBytes, valueLength);
    args.push(Buffer.concat(headerBytes), Buffer.concat(keyBytes), values);
    const result = await this.#writes.send(() => this.redis.svcApplyWrites(keys.length, [...keys, ...args]));
    if (Array.isArray(result)) throw new FencedError(result);
    if (result > 0) throw mismatch(writes[result - 1]!);
  }

  declareListedPrefix(prefix: string): void {
    this.#listed.add(prefix);
  }

  async listKeys(prefix: string, page: KeyPage): Promise<ListedKey[]> {
    if (!this.#listed.has(prefix)) throw new Error(`key prefix '${prefix}' was not declared for listing`);
    const flat = await this.redis.svcListKeysBuffer(1, prefix, page.after === undefined ? '-' : `(${page.after}`, page.limit);
    const out: ListedKey[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ key: flat[i]!.toString('utf8'), value: flat[i + 1]! });
    return out;
  }

  #listedPrefixOf(key: string): string | undefined {
    for (const prefix of this.#listed) if (key.startsWith(prefix) && key.length > prefix.length) return prefix;
    return undefined;
  }

  /** The backend shares this store's connection; its subscriber connection closes with it or with this store. */
  placementBackend(appId: string): PlacementBackend {
    // A connection of its own: a heartbeat queued behind a 100,000-write turn on the shared connection arrived too
    // late, and the replica fenced itself off its own partitions (and reloaded every instance).
    const backend = new RedisPlacementBackend(duplicateRedis(this.redis), appId, { ownsConnection: true });
    this.#backends.push(backend);
    return backend;
  }

  transactFenced(appId: string, ops: readonly TransactionOperation[], fences: readonly Fence[]): Promise<void> {
    return this.applyFenced(appId, ops, fences);
  }

  async close(): Promise<void> {
    await Promise.all(this.#backends.map((b) => b.close()));
    await closeRedis(this.redis);
  }
}

/**
 * `chunks` (of `length` bytes in all) as one buffer, copied a slice at a time between yields: one `Buffer.concat`
 * of a fan-out turn's 200,000 values held the event loop 40–90 ms. Copied into one buffer made once, not joined
 * slice by slice: a buffer per slice kept ~150 MiB more of the process's memory at the peak of a 100,000-activity
 * fan-out.
 */
async function joinInSlices(chunks: readonly Buffer[], length: number): Promise<Buffer> {
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  await inSlices(chunks, (chunk) => void (at += chunk.copy(out, at)));
  return out;
}

function toStored(fields: (Buffer | null)[]): StoredValue | undefined {
  const [data, version] = fields;
  return data && version ? { value: data, version: version.toString() } : undefined;
}
