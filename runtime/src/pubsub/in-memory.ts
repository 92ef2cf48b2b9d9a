/**
 * `pubsub.in-memory`: topics inside this svcd process, for development and tests. Every subscription of a topic
 * gets every message published after it subscribed; nothing survives a restart and nothing is shared between
 * replicas. A message whose handler failed is redelivered after `redeliverInterval` (default 1s).
 */
import { Fifo } from '../util/fifo.js';
import { metadataDuration } from '../components/metadata-duration.js';
import type { MessageHandler, PublishRequest, PubSub, ReceivedMessage, SubscribeRequest, TopicSubscription } from '../components/contracts/pubsub.js';

const DEFAULT_REDELIVER_MS = 1000;

export class InMemoryPubSub implements PubSub {
  readonly #topics = new Map<string, Set<LocalSubscription>>();
  #nextId = 1;

  constructor(private readonly redeliverMs = DEFAULT_REDELIVER_MS) {}

  static fromMetadata(get: (name: string) => string | undefined): InMemoryPubSub {
    return new InMemoryPubSub(metadataDuration(get, 'redeliverInterval', DEFAULT_REDELIVER_MS));
  }

  features(): readonly string[] {
    return [];
  }

  publish(req: PublishRequest): Promise<void> {
    const msg: ReceivedMessage = { id: String(this.#nextId++), topic: req.topic, data: req.data, contentType: req.contentType, metadata: { ...req.metadata } };
    for (const sub of this.#topics.get(req.topic) ?? []) sub.offer(msg);
    return Promise.resolve();
  }

  subscribe(req: SubscribeRequest, handler: MessageHandler): Promise<TopicSubscription> {
    let subs = this.#topics.get(req.topic);
    if (!subs) this.#topics.set(req.topic, (subs = new Set()));
    const sub = new LocalSubscription(handler, Math.max(1, req.maxConcurrency), this.redeliverMs);
    subs.add(sub);
    return Promise.resolve({
      close: async () => {
        subs.delete(sub);
        await sub.close();
      },
    });
  }

  async close(): Promise<void> {
    const all = [...this.#topics.values()].flatMap((s) => [...s]);
    this.#topics.clear();
    await Promise.all(all.map((s) => s.close()));
  }
}

/** One subscription's queue, handed to the handler with at most `limit` calls outstanding. */
class LocalSubscription {
  readonly #queue = new Fifo<ReceivedMessage>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(
    private readonly handler: MessageHandler,
    private readonly limit: number,
    private readonly redeliverMs: number,
  ) {}

  offer(msg: ReceivedMessage): void {
    if (this.#closed) return;
    this.#queue.push(msg);
    this.#pump();
  }

  #pump(): void {
    while (!this.#closed && this.#inFlight.size < this.limit && this.#queue.length > 0) {
      const msg = this.#queue.shift()!;
      const call: Promise<void> = this.handler(msg).then(
        () => undefined,
        () => this.#redeliverLater(msg),
      );
      this.#inFlight.add(call);
      void call.finally(() => {
        this.#inFlight.delete(call);
        this.#pump();
      });
    }
  }

  #redeliverLater(msg: ReceivedMessage): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.offer(msg);
    }, this.redeliverMs);
    this.#timers.add(timer);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    await Promise.all([...this.#inFlight]);
  }
}
