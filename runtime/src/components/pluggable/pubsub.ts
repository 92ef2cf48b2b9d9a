import * as grpc from '@grpc/grpc-js';
import type { ComponentsProtoPackage } from '@svc/proto';
import { ensureError } from '../../errors/runtime-error.js';
import type { FeaturesResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/FeaturesResponse.js';
import type { PubSubClient } from '@svc/proto/gen/svc/proto/components/v1/PubSub.js';
import type { Logger } from '../../log/logger.js';
import type { BulkPublishResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/BulkPublishResponse.js';
import type { BulkPublishMessage, FailedEntry, MessageHandler, PublishRequest, PubSub, SubscribeRequest, TopicSubscription } from '../contracts/pubsub.js';
import type { ComponentConnection } from './connection.js';
import { Closables } from '../../util/closables.js';
import { PullSubscription } from './pull-subscription.js';

/** A pub/sub served by a pluggable component: Publish, and one PullMessages stream per subscription. */
export class PluggablePubSub implements PubSub {
  readonly #client: PubSubClient;
  readonly #subscriptions = new Closables<PullSubscription>();
  #features: string[] = [];
  #bulkUnimplemented = false;

  constructor(
    private readonly conn: ComponentConnection,
    proto: ComponentsProtoPackage,
    /** The Component's name, sent as `pubsub_name`. */
    private readonly name: string,
    /** The spec's metadata, sent with every Init. */
    private readonly properties: Readonly<Record<string, string>>,
    private readonly log: Logger,
  ) {
    this.#client = conn.client(proto.grpc.PubSub);
  }

  async handshake(): Promise<void> {
    await this.conn.raw((md, o, cb) => this.#client.Init({ metadata: { properties: { ...this.properties } } }, md, o, cb));
    const res = await this.conn.raw<FeaturesResponse__Output>((md, o, cb) => this.#client.Features({}, md, o, cb));
    this.#features = [...res.features];
  }

  ping(deadline: Date): Promise<unknown> {
    return this.conn.raw((md, o, cb) => this.#client.Ping({}, md, o, cb), deadline);
  }

  features(): readonly string[] {
    return this.#features;
  }

  capabilities(): readonly string[] {
    return this.#features;
  }

  async publish(req: PublishRequest): Promise<void> {
    const message = { data: req.data, pubsubName: this.name, topic: req.topic, metadata: { ...req.metadata }, contentType: req.contentType };
    await this.conn.call((md, o, cb) => this.#client.Publish(message, md, o, cb));
  }

  async bulkPublish(topic: string, entries: readonly BulkPublishMessage[], metadata: Readonly<Record<string, string>>): Promise<FailedEntry[]> {
    const request = {
      pubsubName: this.name,
      topic,
      metadata: { ...metadata },
      entries: entries.map((e) => ({ entryId: e.entryId, event: e.data, contentType: e.contentType, metadata: { ...e.metadata } })),
    };
    if (!this.#bulkUnimplemented) {
      try {
        const res = await this.conn.call<BulkPublishResponse__Output>((md, o, cb) => this.#client.BulkPublish(request, md, o, cb));
        return res.failedEntries.map((f) => ({ entryId: f.entryId, error: f.error }));
      } catch (err) {
        if ((err as { code?: unknown }).code !== grpc.status.UNIMPLEMENTED) throw err;
        this.#bulkUnimplemented = true; // a component without BulkPublish: its entries go one by one from now on
      }
    }
    const outcomes = await Promise.allSettled(entries.map((e) => this.publish({ topic, data: e.data, contentType: e.contentType, metadata: { ...metadata, ...e.metadata } })));
    return outcomes.flatMap((o, i) => (o.status === 'rejected' ? [{ entryId: entries[i]!.entryId, error: ensureError(o.reason).message }] : []));
  }

  async subscribe(req: SubscribeRequest, handler: MessageHandler): Promise<TopicSubscription> {
    const sub = new PullSubscription(this.conn, this.#client, req, handler, this.log);
    await sub.open();
    return this.#subscriptions.add(sub);
  }

  health(): { ok: boolean; reason?: string } {
    return this.conn.health();
  }

  async close(): Promise<void> {
    await this.#subscriptions.closeAll();
    await this.conn.close();
  }
}
