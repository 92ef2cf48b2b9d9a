/**
 * `pubsub.jetstream`: NATS JetStream. A topic is a subject; messages are stored in the stream that captures the
 * subject — one the operator made, or else the stream `streamName` (default `svc`) that svcd creates and extends
 * with each topic it meets. A subscription reads through a durable pull consumer per consumer group (`consumerID`,
 * the app id unless set) and topic, so an app's replicas share the work and each app gets every message. Publish
 * resolves once JetStream stored the message; a message is acknowledged only after the handler finished with it.
 * What stays unacknowledged — a handler failure (negatively acknowledged, redelivered after `nakDelay`), or svcd
 * killed mid-delivery (redelivered after `ackWait`) — comes again.
 * Metadata: `natsURL` (default nats://127.0.0.1:4222; a comma list for several), `token`, `username`/`password`,
 * `streamName`, `ackWait` (default 30s), `nakDelay` (default 1s), `deliverPolicy` (`all`, the default, or `new`:
 * where a new consumer starts), `memoryStorage` (for the stream svcd creates).
 */
import { createHash } from 'node:crypto';
import { connect, nanos, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, StorageType, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { metadataDuration } from '../components/metadata-duration.js';
import { RuntimeError, ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { Closables } from '../util/closables.js';
import { HandlerSlots } from './handler-slots.js';
import type { MessageHandler, PublishRequest, PubSub, SubscribeRequest, TopicSubscription } from '../components/contracts/pubsub.js';

interface JetStreamOptions {
  readonly servers: string[];
  readonly token: string | undefined;
  readonly user: string | undefined;
  readonly pass: string | undefined;
  readonly streamName: string;
  readonly ackWaitMs: number;
  readonly nakDelayMs: number;
  readonly deliverPolicy: DeliverPolicy;
  readonly memoryStorage: boolean;
}

const invalid = (message: string) => new RuntimeError('ERR_COMPONENT_SPEC_INVALID', message);

function jetStreamOptions(get: (name: string) => string | undefined): JetStreamOptions {
  const duration = (name: string, fallbackMs: number) => metadataDuration(get, name, fallbackMs);
  const deliver = (get('deliverPolicy') || 'all').toLowerCase();
  if (deliver !== 'all' && deliver !== 'new') throw invalid(`metadata deliverPolicy '${deliver}' must be 'all' or 'new'`);
  const streamName = get('streamName') || 'svc';
  if (!isValidName(streamName)) throw invalid(`metadata streamName '${streamName}' may not contain '.', '*', '>', '/', '\\' or spaces`);
  return {
    servers: (get('natsURL') || 'nats://127.0.0.1:4222').split(',').map((u) => u.trim()).filter(Boolean),
    token: get('token') || undefined,
    user: get('username') || undefined,
    pass: get('password') || undefined,
    streamName,
    ackWaitMs: duration('ackWait', 30_000),
    nakDelayMs: duration('nakDelay', 1000),
    deliverPolicy: deliver === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
    memoryStorage: get('memoryStorage') === 'true',
  };
}

/** Stream and consumer names may not hold subject tokens' separators and wildcards, path separators or spaces. */
function isValidName(name: string): boolean {
  return name.length > 0 && !/[.*>/\\\s]/.test(name);
}

/** A durable name for a consumer group and topic: readable, and unique even when sanitising made two alike. */
function durableFor(group: string, topic: string): string {
  const readable = `${group}-${topic}`.replace(/[.*>/\\\s]/g, '_').slice(0, 200);
  return readable === `${group}-${topic}` ? readable : `${readable}-${createHash('sha256').update(`${group}\0${topic}`).digest('hex').slice(0, 8)}`;
}

export class JetStreamPubSub implements PubSub {
  readonly #subscriptions = new Closables<ConsumerSubscription>();
  /** Subject → the stream capturing it, once known (or being found), so a publish costs no lookup. */
  readonly #streams = new Map<string, Promise<string>>();
  /** Set while the connection is lost: publishes fail at once instead of waiting for a reply that cannot come. */
  #disconnected: string | undefined;
  /** Publishes waiting for their reply; failed when the connection is lost (the reply cannot come any more). */
  readonly #awaitingReply = new Set<(err: Error) => void>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly opts: JetStreamOptions,
    private readonly log: Logger,
  ) {
    void this.#watchConnection();
  }

  async #watchConnection(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') {
        this.#disconnected = `the connection to NATS at ${status.server} is lost; reconnecting`;
        for (const fail of this.#awaitingReply) fail(new Error(this.#disconnected));
        this.log.warn({ server: status.server }, 'NATS connection lost; reconnecting');
      } else if (status.type === 'reconnect') {
        this.#disconnected = undefined;
        this.log.info({ server: status.server }, 'NATS connection back');
      }
    }
  }

  static async connect(get: (name: string) => string | undefined, log: Logger): Promise<JetStreamPubSub> {
    const opts = jetStreamOptions(get);
    let nc: NatsConnection;
    try {
      // Reconnects for ever, every half second: a broker that restarts is used again at once.
      nc = await connect({ servers: opts.servers, token: opts.token, user: opts.user, pass: opts.pass, maxReconnectAttempts: -1, reconnectTimeWait: 500, timeout: 5000, name: 'svcd' });
    } catch (err) {
      throw new Error(`cannot connect to NATS at ${opts.servers.join(', ')}: ${ensureError(err).message}`, { cause: err });
    }
    try {
      const jsm = await jetstreamManager(nc);
      return new JetStreamPubSub(nc, jetstream(nc), jsm, opts, log);
    } catch (err) {
      await nc.close();
      throw new Error(`NATS at ${opts.servers.join(', ')} has no JetStream (start nats-server with -js): ${ensureError(err).message}`, { cause: err });
    }
  }

  features(): readonly string[] {
    return [];
  }

  async publish(req: PublishRequest): Promise<void> {
    if (this.#disconnected) throw new Error(this.#disconnected);
    await this.#streamFor(req.topic);
    const h = natsHeaders();
    h.set('Content-Type', req.contentType);
    let fail!: (err: Error) => void;
    const lost = new Promise<never>((_, reject) => (fail = reject));
    this.#awaitingReply.add(fail);
    try {
      await Promise.race([this.js.publish(req.topic, req.data, { headers: h }), lost]);
    } finally {
      this.#awaitingReply.delete(fail);
    }
  }

  async subscribe(req: SubscribeRequest, handler: MessageHandler): Promise<TopicSubscription> {
    const stream = await this.#streamFor(req.topic);
    const durable = durableFor(req.metadata.consumerID || 'default', req.topic);
    try {
      await this.jsm.consumers.info(stream, durable);
    } catch {
      await this.jsm.consumers.add(stream, {
        durable_name: durable,
        filter_subject: req.topic,
        ack_policy: AckPolicy.Explicit,
        ack_wait: nanos(this.opts.ackWaitMs),
        deliver_policy: this.opts.deliverPolicy,
        max_deliver: -1,
      });
    }
    const consumer = await this.js.consumers.get(stream, durable);
    const slots = new HandlerSlots(Math.max(1, req.maxConcurrency));
    const sub = new ConsumerSubscription(await consumer.consume({ max_messages: slots.limit }), req.topic, slots, this.opts.nakDelayMs, handler, this.log);
    sub.start();
    return this.#subscriptions.add(sub);
  }

  /** The stream capturing `subject`: an existing one, else svcd's own stream, created or extended to capture it. */
  #streamFor(subject: string): Promise<string> {
    let found = this.#streams.get(subject);
    if (!found) {
      found = this.#findOrCapture(subject);
      this.#streams.set(subject, found);
      found.catch(() => this.#streams.delete(subject)); // found again next time
    }
    return found;
  }

  async #findOrCapture(subject: string): Promise<string> {
    const name = this.opts.streamName;
    // Another svcd may extend the same stream at the same time; an update that lost the race is made again.
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await this.jsm.streams.find(subject).catch(() => undefined);
      if (existing) return existing;
      const info = await this.jsm.streams.info(name).catch(() => undefined);
      try {
        if (!info) {
          await this.jsm.streams.add({ name, subjects: [subject], storage: this.opts.memoryStorage ? StorageType.Memory : StorageType.File });
        } else {
          await this.jsm.streams.update(name, { ...info.config, subjects: [...(info.config.subjects ?? []), subject] });
        }
        this.log.info({ stream: name, subject }, 'the JetStream stream captures a new topic');
      } catch (err) {
        this.log.debug({ stream: name, subject, err: ensureError(err).message }, 'extending the stream failed; looking again');
      }
    }
    const existing = await this.jsm.streams.find(subject).catch(() => undefined);
    if (existing) return existing;
    throw new Error(`no JetStream stream captures subject '${subject}' and stream '${name}' could not be made to`);
  }

  async pingServer(timeoutMs: number): Promise<void> {
    if (this.nc.isClosed()) throw new Error('the NATS connection is closed');
    if (this.#disconnected) throw new Error(this.#disconnected);
    await this.nc.flush();
    await this.nc.rtt().then((ms) => {
      if (ms > timeoutMs) throw new Error(`NATS answered after ${ms} ms`);
    });
  }

  async close(): Promise<void> {
    await this.#subscriptions.closeAll();
    await this.nc.drain().catch(() => this.nc.close());
  }
}

class ConsumerSubscription {
  #closed = false;
  #loop: Promise<void> | undefined;

  constructor(
    private readonly messages: ConsumerMessages,
    private readonly topic: string,
    private readonly slots: HandlerSlots,
    private readonly nakDelayMs: number,
    private readonly handler: MessageHandler,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.#loop = this.#run();
  }

  async #run(): Promise<void> {
    try {
      for await (const m of this.messages) {
        if (this.#closed) {
          m.nak(); // fetched while closing: back to the broker at once
          continue;
        }
        this.#dispatch(m);
        await this.slots.free();
      }
    } catch (err) {
      if (!this.#closed) this.log.error({ topic: this.topic, err: ensureError(err).message }, 'the JetStream consumer stopped');
    }
  }

  #dispatch(m: JsMsg): void {
    const contentType = m.headers?.get('Content-Type') || undefined;
    const msg = { id: String(m.seq), topic: this.topic, data: Buffer.from(m.data), ...(contentType ? { contentType } : {}), metadata: {} };
    const call: Promise<void> = this.handler(msg).then(
      () => m.ack(),
      () => m.nak(this.nakDelayMs),
    );
    this.slots.track(call);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const settled = this.slots.close();
    await this.messages.close();
    await this.#loop;
    await settled;
  }
}
