/**
 * `pubsub.redis`: a topic is a Redis stream; a subscription reads it through a consumer group named by its
 * `consumerID` (the app id unless set), so the replicas of an app share the work and each app gets every message.
 * A message is acknowledged (XACK) only after the handler finished with it. What stays unacknowledged — a handler
 * failure, or svcd killed mid-delivery — is delivered again: this consumer's own pending entries at start, and any
 * consumer's entries idle for `processingTimeout` (claimed with XAUTOCLAIM every `redeliverInterval`).
 * Metadata: the `state.redis` connection names (`redisHost`, …), `maxLenApprox` (trim streams to about that many
 * entries), `processingTimeout` (default 60s), `redeliverInterval` (default 15s), `consumerName` (default the host name).
 */
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { metadataDuration } from '../components/metadata-duration.js';
import { RuntimeError, ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { closeRedis, connectRedis, duplicateRedis, redisOptionsFromMetadata, type RedisStoreOptions } from '../stores/redis-connection.js';
import { Closables } from '../util/closables.js';
import { HandlerSlots } from './handler-slots.js';
import type { MessageHandler, PublishRequest, PubSub, ReceivedMessage, SubscribeRequest, TopicSubscription } from '../components/contracts/pubsub.js';

interface StreamOptions {
  readonly connection: RedisStoreOptions;
  readonly maxLenApprox: number | undefined;
  readonly processingTimeoutMs: number;
  readonly redeliverIntervalMs: number;
  readonly consumerName: string;
}

/** How long one XREADGROUP waits for new entries before it is issued again (a wait on the server, not a poll). */
const BLOCK_MS = 5000;

function streamOptions(get: (name: string) => string | undefined): StreamOptions {
  const duration = (name: string, fallbackMs: number) => metadataDuration(get, name, fallbackMs);
  const maxLen = get('maxLenApprox');
  if (maxLen && !/^[1-9][0-9]*$/.test(maxLen)) throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata maxLenApprox '${maxLen}' must be a positive whole number`);
  return {
    connection: redisOptionsFromMetadata(get),
    maxLenApprox: maxLen ? Number(maxLen) : undefined,
    processingTimeoutMs: duration('processingTimeout', 60_000),
    redeliverIntervalMs: duration('redeliverInterval', 15_000),
    consumerName: get('consumerName') || hostname(),
  };
}

/** XREADGROUP / XAUTOCLAIM entries: `[id, [field, value, …] | null]`. */
type RawEntry = [Buffer, Buffer[] | null];

function toMessage(topic: string, [id, fields]: RawEntry): ReceivedMessage | undefined {
  if (!fields) return undefined; // trimmed from the stream while pending: nothing left to deliver
  const get = (name: string) => {
    for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i]!.toString() === name) return fields[i + 1];
    return undefined;
  };
  const data = get('data');
  if (!data) return undefined;
  const contentType = get('contentType')?.toString();
  return { id: id.toString(), topic, data, ...(contentType ? { contentType } : {}), metadata: {} };
}

/** The entries of a one-stream XREADGROUP reply: `[name, entries]` as a raw reply, `[[name, entries]]` as RESP2 nests it. */
function streamEntries(reply: unknown[] | null): RawEntry[] {
  if (!reply || reply.length === 0) return [];
  const pair = Array.isArray(reply[0]) ? (reply[0] as unknown[]) : reply;
  return (pair[1] as RawEntry[] | undefined) ?? [];
}

/** Creates the consumer group (and the stream) unless it exists; from the stream's start, so nothing is skipped. */
async function ensureGroup(redis: Redis, topic: string, group: string): Promise<void> {
  try {
    await redis.xgroup('CREATE', topic, group, '0', 'MKSTREAM');
  } catch (err) {
    if (!/BUSYGROUP/.test(ensureError(err).message)) throw err;
  }
}

export class RedisStreamsPubSub implements PubSub {
  readonly #subscriptions = new Closables<StreamSubscription>();

  private constructor(
    private readonly redis: Redis,
    private readonly opts: StreamOptions,
    private readonly log: Logger,
  ) {}

  static async connect(get: (name: string) => string | undefined, log: Logger): Promise<RedisStreamsPubSub> {
    const opts = streamOptions(get);
    return new RedisStreamsPubSub(await connectRedis(opts.connection), opts, log);
  }

  features(): readonly string[] {
    return [];
  }

  async publish(req: PublishRequest): Promise<void> {
    const trim = this.opts.maxLenApprox === undefined ? [] : ['MAXLEN', '~', String(this.opts.maxLenApprox)];
    await this.redis.xadd(req.topic, ...trim, '*', 'data', req.data, 'contentType', req.contentType);
  }

  async subscribe(req: SubscribeRequest, handler: MessageHandler): Promise<TopicSubscription> {
    const group = req.metadata.consumerID || 'default';
    await ensureGroup(this.redis, req.topic, group);
    const reader = duplicateRedis(this.redis);
    const sub = new StreamSubscription(this.redis, reader, req.topic, group, this.opts, new HandlerSlots(Math.max(1, req.maxConcurrency)), handler, this.log);
    sub.start();
    return this.#subscriptions.add(sub);
  }

  async pingServer(): Promise<void> {
    if (this.redis.status !== 'ready') throw new Error(`cannot reach Redis: connection is ${this.redis.status}`);
    await this.redis.ping();
  }

  async close(): Promise<void> {
    await this.#subscriptions.closeAll();
    await closeRedis(this.redis);
  }
}

class StreamSubscription {
  /** Entries being handled here: a reclaim that finds one of them (a slow handler) must not hand it out twice. */
  readonly #inFlightIds = new Set<string>();
  #closed = false;
  #loop: Promise<void> | undefined;
  #reclaimTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    /** Its own connection: a blocking XREADGROUP holds it. */
    private readonly reader: Redis,
    private readonly topic: string,
    private readonly group: string,
    private readonly opts: StreamOptions,
    private readonly slots: HandlerSlots,
    private readonly handler: MessageHandler,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.#loop = this.#run();
    this.#reclaimTimer = setInterval(() => void this.#reclaim(), this.opts.redeliverIntervalMs);
  }

  async #run(): Promise<void> {
    // This consumer's own pending entries first (what it had when svcd stopped or crashed), then new ones.
    let pendingFrom: string | undefined = '0';
    for (let delay = 100; !this.#closed; ) {
      try {
        await this.slots.free();
        if (this.#closed) return;
        const count = this.slots.available;
        const block = pendingFrom === undefined ? ['BLOCK', BLOCK_MS] : [];
        const res = (await this.reader.callBuffer('XREADGROUP', 'GROUP', this.group, this.opts.consumerName, 'COUNT', count, ...block, 'STREAMS', this.topic, pendingFrom ?? '>')) as unknown[] | null;
        const entries = streamEntries(res);
        if (pendingFrom !== undefined) pendingFrom = entries.length === 0 ? undefined : entries.at(-1)![0].toString();
        for (const entry of entries) this.#dispatch(entry);
        delay = 100;
      } catch (err) {
        if (this.#closed) return;
        const message = ensureError(err).message;
        // The stream or its group is gone (deleted, or a Redis restarted without persistence): made again.
        if (/NOGROUP/.test(message)) await ensureGroup(this.redis, this.topic, this.group).catch(() => undefined);
        this.log.warn({ topic: this.topic, err: message, retryInMs: delay }, 'reading the stream failed');
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  /** Entries any consumer of the group left unacknowledged for `processingTimeout` come to this one. */
  async #reclaim(): Promise<void> {
    if (this.#closed || this.slots.available === 0) return;
    try {
      const free = this.slots.available;
      const res = (await this.redis.callBuffer('XAUTOCLAIM', this.topic, this.group, this.opts.consumerName, this.opts.processingTimeoutMs, '0-0', 'COUNT', free)) as [Buffer, RawEntry[], Buffer[]?];
      for (const entry of res[1]) this.#dispatch(entry);
    } catch (err) {
      this.log.warn({ topic: this.topic, err: ensureError(err).message }, 'claiming pending entries failed');
    }
  }

  #dispatch(entry: RawEntry): void {
    const id = entry[0].toString();
    if (this.#inFlightIds.has(id)) return;
    const msg = toMessage(this.topic, entry);
    if (!msg) {
      void this.redis.xack(this.topic, this.group, id).catch(() => undefined);
      return;
    }
    const call: Promise<void> = this.handler(msg).then(
      () =>
        this.redis.xack(this.topic, this.group, id).then(
          () => undefined,
          (err: unknown) => this.log.warn({ topic: this.topic, id, err: ensureError(err).message }, 'acknowledging failed: the entry will be delivered again'),
        ),
      () => undefined, // left pending: claimed again after processingTimeout
    );
    this.#inFlightIds.add(id);
    this.slots.track(call.finally(() => this.#inFlightIds.delete(id)));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#reclaimTimer);
    const settled = this.slots.close();
    this.reader.disconnect(); // ends a blocking read at once
    await this.#loop;
    await settled;
  }
}
