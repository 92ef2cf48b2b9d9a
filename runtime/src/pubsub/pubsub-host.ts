/**
 * The subscriptions of this app, started once the components are up and the app answers: programmatic ones from
 * the app's `GET /dapr/subscribe`, declarative ones from `Subscription` resources. A subscription that cannot run
 * (unknown pub/sub, forbidden topic, an invalid entry) is logged as an error naming its source and left out; the
 * others run. Stopped before the components close.
 */
import type { AppEvents, TopicDelivery } from '../app/app-events.js';
import { OPEN_GATE, type AppGate } from '../app/app-health.js';
import { RuntimeError, ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import type { Part } from '../util/lifecycle.js';
import type { PubSubMetrics } from './metrics.js';
import type { PubSubs } from './pubsubs.js';
import { SubscriptionRunner } from './subscription-runner.js';
import { parseSubscription, subscriptionMetadata, type Subscription } from './subscriptions.js';

export interface PubSubHostOptions {
  readonly appId: string;
  /** 0: no app channel, so no subscriptions. */
  readonly appPort: number;
  readonly appProtocol: 'http' | 'grpc';
  /** The app channel the subscriptions are read from and delivered through. */
  readonly app: AppEvents;
  /** Holds deliveries to the app while it is unhealthy (app health checks). */
  readonly gate: AppGate;
  readonly appWaitMs: number;
  /** How long stopping waits for deliveries in flight before cancelling them (--shutdown-grace-period). */
  readonly shutdownGraceMs: number;
  readonly pubsubs: PubSubs;
  readonly declarative: () => Promise<Subscription[]>;
  readonly metrics: PubSubMetrics;
  readonly log: Logger;
}

export class PubSubHost implements Part {
  readonly name = 'pubsub-subscriptions';
  #runners: SubscriptionRunner[] = [];

  constructor(private readonly opts: PubSubHostOptions) {}

  async start(): Promise<void> {
    const { log } = this.opts;
    if (this.opts.pubsubs.list().length === 0) return;
    const declared = await this.opts.declarative();
    if (this.opts.appPort === 0) {
      if (declared.length > 0) log.warn({ count: declared.length }, 'Subscription resources found but svcd has no --app-port to deliver to: not started');
      return;
    }
    const subs = [...(await this.#programmatic()), ...declared];
    const taken = new Set<string>();
    for (const sub of subs) {
      const key = `${sub.pubsubName}\u0000${sub.topic}`;
      if (taken.has(key)) {
        log.error({ pubsub: sub.pubsubName, topic: sub.topic, source: sub.source }, 'a second subscription to the same pub/sub and topic is ignored');
        continue;
      }
      try {
        const target = this.opts.pubsubs.resolve(sub.pubsubName, sub.topic, 'subscribe');
        const runner = new SubscriptionRunner(sub, target, { appId: this.opts.appId, app: this.opts.app, gate: this.opts.gate, metrics: this.opts.metrics, log });
        await runner.start();
        this.#runners.push(runner);
        taken.add(key);
        log.info({ pubsub: sub.pubsubName, topic: sub.topic, kind: sub.kind }, 'subscribed');
      } catch (err) {
        log.error({ pubsub: sub.pubsubName, topic: sub.topic, source: sub.source, err: ensureError(err).message }, 'subscription not started');
      }
    }
  }

  /**
   * A streaming subscription (gRPC SubscribeTopicEventsAlpha1): runs until the returned `stop`, delivering
   * through `delivery`. One subscription per pub/sub and topic, whatever its kind: ERR_PUBSUB_SUBSCRIPTION_INVALID
   * (ALREADY_EXISTS over gRPC) for a second one.
   */
  async subscribeStream(sub: Subscription, delivery: TopicDelivery): Promise<{ stop(): Promise<void> }> {
    if (this.#runners.some((r) => r.sub.pubsubName === sub.pubsubName && r.sub.topic === sub.topic)) {
      throw new RuntimeError('ERR_PUBSUB_SUBSCRIPTION_EXISTS', `this app already subscribes to topic ${sub.topic} of pub/sub ${sub.pubsubName}`);
    }
    const target = this.opts.pubsubs.resolve(sub.pubsubName, sub.topic, 'subscribe');
    // Not the app: its health does not hold a streaming subscriber's deliveries.
    const runner = new SubscriptionRunner(sub, target, { appId: this.opts.appId, app: delivery, gate: OPEN_GATE, metrics: this.opts.metrics, log: this.opts.log });
    this.#runners.push(runner);
    try {
      await runner.start();
    } catch (err) {
      this.#runners = this.#runners.filter((r) => r !== runner);
      throw err;
    }
    this.opts.log.info({ pubsub: sub.pubsubName, topic: sub.topic, kind: sub.kind }, 'subscribed');
    return {
      stop: async () => {
        if (!this.#runners.includes(runner)) return;
        this.#runners = this.#runners.filter((r) => r !== runner);
        await runner.stop(this.opts.shutdownGraceMs);
        this.opts.log.info({ pubsub: sub.pubsubName, topic: sub.topic }, 'streaming subscription ended');
      },
    };
  }

  async stop(): Promise<void> {
    const runners = this.#runners;
    this.#runners = [];
    await Promise.all(runners.map((r) => r.stop(this.opts.shutdownGraceMs)));
  }

  /** For `/v1.0/metadata`. */
  metadata(): { subscriptions: Record<string, unknown>[] } {
    return { subscriptions: this.#runners.map((r) => subscriptionMetadata(r.sub)) };
  }

  /** The app's own subscriptions (`GET /dapr/subscribe`, or ListTopicSubscriptions over gRPC). */
  async #programmatic(): Promise<Subscription[]> {
    const { entries, source } = await this.opts.app.subscriptions(this.opts.appWaitMs);
    return entries.flatMap((entry: unknown, i) => {
      try {
        return [parseSubscription(entry, 'programmatic', `${source} (entry ${i + 1})`, { verbatimPaths: this.opts.appProtocol === 'grpc' })];
      } catch (err) {
        this.opts.log.error({ err: ensureError(err).message }, 'invalid subscription left out');
        return [];
      }
    });
  }
}
