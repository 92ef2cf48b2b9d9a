import { Redis } from 'ioredis';
import { RuntimeError } from '../errors/runtime-error.js';
import { mismatch, type PlannedWrite } from './write-plan.js';
import { VersionedStateStore, type StoredValue } from './versioned-store.js';

export interface RedisStoreOptions {
  readonly host: string;
  /** @default 6379 */
  readonly port: number;
  readonly username?: string;
  readonly password?: string;
  /** @default 0 */
  readonly db: number;
  readonly tls: boolean;
  /** Upper bound on connecting and the first PING at init; the component init timeout usually fires first. */
  readonly connectTimeoutMs: number;
}

/** Reads `state.redis` metadata: `redisHost` (`host:port`), `redisUsername`, `redisPassword`, `redisDB`, `enableTLS`. */
export function redisOptionsFromMetadata(get: (name: string) => string | undefined): RedisStoreOptions {
  const address = get('redisHost') || 'localhost:6379';
  const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(address);
  const port = Number(m?.[3] ?? 6379);
  if (!m || port < 1 || port > 65535) throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata redisHost '${address}' must be host:port`);
  const db = Number(get('redisDB') || 0);
  if (!Number.isInteger(db) || db < 0) throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata redisDB '${get('redisDB')}' must be a database number`);
  return {
    host: (m[1] ?? m[2])!,
    port,
    username: get('redisUsername') || undefined,
    password: get('redisPassword') || undefined,
    db,
    tls: (get('enableTLS') ?? '').toLowerCase() === 'true',
    connectTimeoutMs: 10_000,
  };
}

/**
 * Checks every write's condition against the current versions (updated as the batch goes, so later writes see
 * earlier ones), then applies all of them; or applies none and returns the 1-based index of the first failure.
 * Data layout per key: a hash with fields `data` and `version`, the same as the reference system's Redis store.
 * ARGV per write: kind (`set`/`delete`), condition (`any`/`absent`/`version`), expected version, value.
 */
const APPLY_WRITES_LUA = `
local versions = {}
local newVersions = {}
for i = 1, #KEYS do
  local key = KEYS[i]
  local kind, cond, want = ARGV[i * 4 - 3], ARGV[i * 4 - 2], ARGV[i * 4 - 1]
  local cur = versions[key]
  if cur == nil then
    local stored = redis.call('HGET', key, 'version')
    if stored then cur = tonumber(stored) else cur = false end
  end
  if cond == 'absent' and cur ~= false then return i end
  if cond == 'version' and cur ~= tonumber(want) then return i end
  if kind == 'set' then
    cur = (cur or 0) + 1
    newVersions[i] = cur
  else
    cur = false
  end
  versions[key] = cur
end
for i = 1, #KEYS do
  if ARGV[i * 4 - 3] == 'set' then
    redis.call('HSET', KEYS[i], 'data', ARGV[i * 4], 'version', newVersions[i])
  else
    redis.call('DEL', KEYS[i])
  end
end
return 0
`;

interface ApplyWritesCommand {
  svcApplyWrites(numKeys: number, ...keysAndArgs: (string | Buffer)[]): Promise<number>;
}

/** `state.redis`: one hash per key; every write (single, bulk or transaction) is one atomic Lua script. */
export class RedisStateStore extends VersionedStateStore {
  private constructor(private readonly redis: Redis & ApplyWritesCommand) {
    super();
  }

  /** Connects and verifies the server answers, so a wrong address fails the component init with the reason. */
  static async connect(opts: RedisStoreOptions): Promise<RedisStateStore> {
    const redis = new Redis({
      host: opts.host,
      port: opts.port,
      username: opts.username,
      password: opts.password,
      db: opts.db,
      tls: opts.tls ? {} : undefined,
      lazyConnect: true,
      connectTimeout: opts.connectTimeoutMs,
      maxRetriesPerRequest: 3,
    });
    redis.on('error', () => undefined); // reconnects on its own; failed commands reject with the reason
    redis.defineCommand('svcApplyWrites', { lua: APPLY_WRITES_LUA });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        redis.connect().then(() => redis.ping()),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${opts.connectTimeoutMs} ms`)), opts.connectTimeoutMs))),
      ]);
    } catch (err) {
      redis.disconnect();
      throw new Error(`cannot connect to Redis at ${opts.host}:${opts.port}: ${(err as Error).message}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
    return new RedisStateStore(redis as Redis & ApplyWritesCommand);
  }

  health(): { ok: boolean; reason?: string } {
    return this.redis.status === 'ready' ? { ok: true } : { ok: false, reason: `redis connection is ${this.redis.status}` };
  }

  protected async read(key: string): Promise<StoredValue | undefined> {
    return toStored(await this.redis.hmgetBuffer(key, 'data', 'version'));
  }

  protected async readMany(keys: readonly string[]): Promise<(StoredValue | undefined)[]> {
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.hmgetBuffer(key, 'data', 'version');
    const results = (await pipeline.exec()) ?? [];
    return results.map(([err, fields]) => {
      if (err) throw err;
      return toStored(fields as (Buffer | null)[]);
    });
  }

  protected async applyAtomically(writes: readonly PlannedWrite[]): Promise<void> {
    const args: (string | Buffer)[] = writes.map((w) => w.key);
    for (const w of writes) {
      const want = w.condition.kind === 'version' ? String(w.condition.version) : '';
      args.push(w.kind, w.condition.kind, want, w.kind === 'set' ? w.value : '');
    }
    const failedAt = await this.redis.svcApplyWrites(writes.length, ...args);
    if (failedAt > 0) throw mismatch(writes[failedAt - 1]!);
  }

  async close(): Promise<void> {
    // QUIT would wait for a reconnect that may never come; without a live connection just drop it.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}

function toStored(fields: (Buffer | null)[]): StoredValue | undefined {
  const [data, version] = fields;
  return data && version ? { value: data, version: version.toString() } : undefined;
}
