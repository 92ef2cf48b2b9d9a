/**
 * The placement tables of one app on Redis. Every method is one Lua script (or one command), so Redis itself
 * serialises hosts; lease time is the server's (`PX`/`PTTL`), never a host's clock.
 *
 * Keys, all under `<appId>|||placement||`:
 * - `host||<hostId>`: the host's lease, the JSON HostRecord set with `PX ttl`;
 * - `hosts`: a set of host ids, pruned of ids whose lease key is gone on every heartbeat;
 * - `partitions`: a hash, field = partition, value `owner:epoch` (or `:epoch` when released);
 * - `token`: the app's internal token, written once.
 * Changes are announced on the pub/sub channel `<appId>|||placement||changes`.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { closeRedis } from '../stores/redis-connection.js';
import { ChangeListeners } from './change-listeners.js';
import { OWNERSHIP_PARTITIONS, type Fence, type HostLease, type HostRecord, type PartitionOwner, type PlacementBackend, type PlacementView } from './placement-store.js';

export interface RedisPlacementKeys {
  /** Prefix of the lease keys: `<hostLeasePrefix><hostId>`. */
  readonly hostLeasePrefix: string;
  readonly hosts: string;
  readonly partitions: string;
  readonly token: string;
  readonly channel: string;
}

export function redisPlacementKeys(appId: string): RedisPlacementKeys {
  const base = `${appId}|||placement||`;
  return { hostLeasePrefix: `${base}host||`, hosts: `${base}hosts`, partitions: `${base}partitions`, token: `${base}token`, channel: `${base}changes` };
}

/** The value of a partitions hash field: `owner:epoch`, owner empty when released. */
export function partitionValue(owner: string | null, epoch: number): string {
  return `${owner ?? ''}:${epoch}`;
}

function parsePartitionValue(partition: number, value: string | undefined): PartitionOwner {
  if (value === undefined) return { partition, owner: null, epoch: 0 };
  const colon = value.lastIndexOf(':');
  return { partition, owner: value.slice(0, colon) || null, epoch: Number(value.slice(colon + 1)) };
}

/**
 * KEYS: hosts set, partitions hash. ARGV: lease prefix, host id, record JSON, ttl ms.
 * Returns { {record, pttl, record, pttl, ...}, HGETALL partitions }. Scripts run on a frozen clock, so no key
 * expires between its GET and its PTTL.
 */
const HEARTBEAT_LUA = `
local prefix = ARGV[1]
redis.call('SET', prefix .. ARGV[2], ARGV[3], 'PX', ARGV[4])
redis.call('SADD', KEYS[1], ARGV[2])
local live = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local record = redis.call('GET', prefix .. id)
  if record then
    live[#live + 1] = record
    live[#live + 1] = redis.call('PTTL', prefix .. id)
  else
    redis.call('SREM', KEYS[1], id)
  end
end
return { live, redis.call('HGETALL', KEYS[2]) }
`;

/**
 * KEYS: partitions hash. ARGV: lease prefix, claimer id, claimer address, partitions...
 * A partition is free when it has no owner, its owner's lease key is gone, or that lease carries the claimer's
 * address. Returns { partition, epoch, ... } of the claimed ones.
 */
const CLAIM_LUA = `
local prefix, me, address = ARGV[1], ARGV[2], ARGV[3]
local claimed = {}
for i = 4, #ARGV do
  local p = ARGV[i]
  local current = redis.call('HGET', KEYS[1], p) or ':0'
  local colon = string.find(current, ':[^:]*$')
  local owner, epoch = string.sub(current, 1, colon - 1), tonumber(string.sub(current, colon + 1))
  local free = owner == ''
  if not free then
    local lease = redis.call('GET', prefix .. owner)
    free = not lease or cjson.decode(lease).address == address
  end
  if free then
    redis.call('HSET', KEYS[1], p, me .. ':' .. (epoch + 1))
    claimed[#claimed + 1] = tonumber(p)
    claimed[#claimed + 1] = epoch + 1
  end
end
return claimed
`;

/** KEYS: partitions hash. ARGV: partition, epoch, `owner:epoch` triples; clears the owner where it still matches. */
const RELEASE_LUA = `
for i = 1, #ARGV, 3 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 2] then
    redis.call('HSET', KEYS[1], ARGV[i], ':' .. ARGV[i + 1])
  end
end
return 0
`;

/** KEYS: token key. ARGV: a fresh token, kept only when none exists. */
const TOKEN_LUA = `
local token = redis.call('GET', KEYS[1])
if token then return token end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
`;

interface PlacementCommands {
  svcPlacementHeartbeat(numKeys: 2, hosts: string, partitions: string, prefix: string, hostId: string, record: string, ttlMs: number): Promise<[string[], string[]]>;
  svcPlacementClaim(numKeys: 1, args: (string | number)[]): Promise<number[]>;
  svcPlacementRelease(numKeys: 1, args: (string | number)[]): Promise<number>;
  svcPlacementToken(numKeys: 1, key: string, fresh: string): Promise<string>;
}

export class RedisPlacementBackend implements PlacementBackend {
  readonly kind = 'redis';
  readonly #redis: Redis & PlacementCommands;
  readonly #keys: RedisPlacementKeys;
  #subscriber: Redis | undefined;
  readonly #listeners = new ChangeListeners(() => this.#openSubscriber());

  readonly #ownsConnection: boolean;

  /** `redis` is closed here only with `ownsConnection` (else it is the store's, shared); subscribing opens one more. */
  constructor(redis: Redis, appId: string, opts: { ownsConnection?: boolean } = {}) {
    this.#ownsConnection = opts.ownsConnection === true;
    redis.defineCommand('svcPlacementHeartbeat', { lua: HEARTBEAT_LUA });
    redis.defineCommand('svcPlacementClaim', { lua: CLAIM_LUA });
    redis.defineCommand('svcPlacementRelease', { lua: RELEASE_LUA });
    redis.defineCommand('svcPlacementToken', { lua: TOKEN_LUA });
    this.#redis = redis as Redis & PlacementCommands;
    this.#keys = redisPlacementKeys(appId);
  }

  async init(): Promise<{ token: string }> {
    return { token: await this.#redis.svcPlacementToken(1, this.#keys.token, randomBytes(32).toString('base64url')) };
  }

  async heartbeat(host: HostRecord, ttlMs: number): Promise<PlacementView> {
    const k = this.#keys;
    const [live, fields] = await this.#redis.svcPlacementHeartbeat(2, k.hosts, k.partitions, k.hostLeasePrefix, host.hostId, JSON.stringify(host), Math.ceil(ttlMs));
    const hosts: HostLease[] = [];
    for (let i = 0; i < live.length; i += 2) hosts.push({ ...(JSON.parse(live[i]!) as HostRecord), expiresInMs: Math.max(0, Number(live[i + 1])) });
    const values = new Map<number, string>();
    for (let i = 0; i < fields.length; i += 2) values.set(Number(fields[i]), fields[i + 1]!);
    const partitions = Array.from({ length: OWNERSHIP_PARTITIONS }, (_, p) => parsePartitionValue(p, values.get(p)));
    return { hosts, partitions };
  }

  async claim(host: Pick<HostRecord, 'hostId' | 'address'>, partitions: readonly number[]): Promise<PartitionOwner[]> {
    if (partitions.length === 0) return [];
    const flat = await this.#redis.svcPlacementClaim(1, [this.#keys.partitions, this.#keys.hostLeasePrefix, host.hostId, host.address, ...partitions]);
    const claimed: PartitionOwner[] = [];
    for (let i = 0; i < flat.length; i += 2) claimed.push({ partition: flat[i]!, owner: host.hostId, epoch: flat[i + 1]! });
    return claimed;
  }

  async release(fences: readonly Fence[]): Promise<void> {
    if (fences.length === 0) return;
    const args: (string | number)[] = [this.#keys.partitions];
    for (const f of fences) args.push(f.partition, f.epoch, partitionValue(f.owner, f.epoch));
    await this.#redis.svcPlacementRelease(1, args);
  }

  async leave(hostId: string): Promise<void> {
    await this.#redis.multi().del(this.#keys.hostLeasePrefix + hostId).srem(this.#keys.hosts, hostId).exec();
  }

  async publish(): Promise<void> {
    await this.#redis.publish(this.#keys.channel, '');
  }

  async subscribe(onChange: () => void): Promise<void> {
    await this.#listeners.add(onChange);
  }

  async #openSubscriber(): Promise<void> {
    const subscriber = this.#redis.duplicate();
    this.#subscriber = subscriber;
    subscriber.on('error', () => undefined); // reconnects and resubscribes on its own
    subscriber.on('message', () => this.#listeners.notify());
    try {
      await subscriber.subscribe(this.#keys.channel);
    } catch (err) {
      this.#subscriber = undefined;
      subscriber.disconnect();
      throw err;
    }
    // After a reconnect, changes published while the connection was down are lost: report one.
    subscriber.on('ready', () => this.#listeners.notify());
  }

  async close(): Promise<void> {
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber) await closeRedis(subscriber);
    if (this.#ownsConnection) await closeRedis(this.#redis);
  }
}
