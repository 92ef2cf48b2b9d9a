/**
 * One subscription at work: takes messages from its pub/sub component (at most `concurrency` at a time), routes
 * each to a path of the app, delivers it, and acts on the answer — success acknowledges; drop acknowledges after
 * moving the message to the dead-letter topic when there is one; retry redelivers after a backoff, up to
 * `maxDeliveryAttempts`, then dead-letters it or (no dead-letter topic) hands it back to the broker unacknowledged,
 * so a message is never lost: the broker redelivers it (and after a crash of svcd, too). Stopping lets deliveries
 * in flight finish within the grace period, then cancels them: what they carried stays with the broker.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureError } from '../errors/runtime-error.js';
import { deliveryPolicy, retryDelay, type DeliveryPolicy } from '../delivery/policy.js';
import type { Logger } from '../log/logger.js';
import type { DeliveryResult, TopicDelivery, TopicRoute } from '../app/app-events.js';
import type { AppGate } from '../app/app-health.js';
import { BulkDelivery } from './bulk-delivery.js';
import { CLOUDEVENT_CONTENT_TYPE, eventForDelivery, isExpired, type CloudEvent } from '../app/cloudevents.js';
import type { PubSubMetrics } from './metrics.js';
import type { LoadedPubSub } from './pubsubs.js';
import { routeFor, type Subscription } from './subscriptions.js';
import type { ReceivedMessage, TopicSubscription } from '../components/contracts/pubsub.js';
import { tracingEnabled } from '../tracing/enabled.js';
import { processBatchSpan, processSpan, type Destination } from '../tracing/messaging.js';
import { inSpan } from '../tracing/spans.js';

export class SubscriptionRunner {
  readonly #policy: DeliveryPolicy;
  /** Stopping: no new attempt starts. */
  readonly #stopped = new AbortController();
  /** The grace period is over: attempts in flight are cancelled. */
  readonly #cancelled = new AbortController();
  /** Set for a bulk subscription: events go to the app in batches. */
  readonly #bulk: BulkDelivery | undefined;
  #subscription: TopicSubscription | undefined;

  constructor(
    readonly sub: Subscription,
    private readonly target: LoadedPubSub,
    private readonly deps: { appId: string; app: TopicDelivery; gate: AppGate; metrics: PubSubMetrics; log: Logger },
  ) {
    this.#policy = deliveryPolicy(sub.metadata, `subscription from ${sub.source}`, 'ERR_PUBSUB_SUBSCRIPTION_INVALID');
    if (sub.bulk) {
      const outcomes = { observed: (r: DeliveryResult, seconds: number) => this.#observe(r, seconds), deadLetterOrDrop: (e: CloudEvent, why: DeliveryResult) => this.#deadLetterOrDrop(e, why) };
      this.#bulk = new BulkDelivery(sub, sub.bulk, this.#policy, this.#batchesTraced(deps.app), deps.gate, outcomes, { stopped: this.#stopped.signal, cancelled: this.#cancelled.signal });
    }
  }

  async start(): Promise<void> {
    // A bulk subscription needs a whole batch in flight at once.
    const maxConcurrency = Math.max(this.#policy.concurrency, this.sub.bulk?.maxMessagesCount ?? 0);
    this.#subscription = await this.target.pubsub.subscribe(
      { topic: this.sub.topic, metadata: { consumerID: this.deps.appId, ...this.sub.metadata }, maxConcurrency },
      (msg) => this.#handle(msg),
    );
  }

  /**
   * Waits up to `graceMs` for the deliveries in flight, then cancels them. Without the bound an app that never
   * answers held svcd's stop for the whole `deliveryTimeout` (a minute by default) whatever --shutdown-grace-period
   * said; the cancelled messages are not acknowledged, so the broker offers them again.
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopped.abort();
    this.#bulk?.close();
    const timer = setTimeout(() => this.#cancelled.abort(), graceMs);
    try {
      await this.#subscription?.close();
    } finally {
      clearTimeout(timer);
    }
  }

  /** With tracing on, each batch's delivery is a `process` span linked to the publishers of its events. */
  #batchesTraced(app: TopicDelivery): TopicDelivery {
    if (!tracingEnabled()) return app;
    const destination = this.#destination;
    return {
      deliver: (...args) => app.deliver(...args),
      deliverBulk: (route, entries, timeoutMs, signal) => {
        const events = entries.flatMap((e) => (Buffer.isBuffer(e.event) ? [] : [e.event]));
        return inSpan(processBatchSpan(destination, events, this.deps.appId), () => app.deliverBulk(route, entries, timeoutMs, signal));
      },
    };
  }

  /** Where the events come from, as spans name it. */
  get #destination(): Destination {
    return { componentType: this.target.spec.type, pubsubName: this.sub.pubsubName, topic: this.sub.topic };
  }

  get #labels() {
    return { pubsub: this.sub.pubsubName, topic: this.sub.topic };
  }

  async #handle(msg: ReceivedMessage): Promise<void> {
    const ctx = { appId: this.deps.appId, pubsubName: this.sub.pubsubName, topic: this.sub.topic };
    const event = eventForDelivery(msg.data, msg.contentType, this.#policy.rawPayload, ctx, msg.id);
    if (isExpired(event)) {
      this.deps.metrics.delivered.inc({ ...this.#labels, outcome: 'expired' });
      return;
    }
    const path = routeFor(this.sub, event);
    if (path === undefined) {
      this.deps.log.warn({ ...this.#labels, id: event.id }, 'no routing rule matches the event and there is no default route: dropped');
      this.deps.metrics.delivered.inc({ ...this.#labels, outcome: 'drop' });
      return;
    }
    if (this.#bulk) return this.#bulk.add(path, this.#policy.rawPayload ? msg.data : event, event);
    const route: TopicRoute = { pubsubName: this.sub.pubsubName, topic: this.sub.topic, path };
    if (!tracingEnabled()) return this.#deliver(route, event);
    // One span for the event's delivery, every attempt under it: the publisher's trace goes on in the subscriber.
    return inSpan(processSpan(this.#destination, event, this.deps.appId), () => this.#deliver(route, event));
  }

  async #deliver(route: TopicRoute, event: CloudEvent): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await this.deps.gate.whenHealthy(this.#stopped.signal);
      if (this.#stopped.signal.aborted) throw new Error('svcd is stopping; the broker keeps the message');
      const result = await this.#deliverOnce(route, event);
      if (result.outcome === 'success') return;
      if (result.outcome === 'drop') return this.#deadLetterOrDrop(event, result);
      if (attempt >= this.#policy.maxDeliveryAttempts) {
        if (this.sub.deadLetterTopic) return this.#deadLetterOrDrop(event, result);
        throw new Error(`not delivered after ${attempt} attempts (${result.detail}); the broker keeps the message`);
      }
      const backoff = retryDelay(this.#policy, attempt);
      this.deps.log.debug({ ...this.#labels, id: event.id, attempt, backoffMs: backoff, reason: result.detail }, 'delivery to be retried');
      await sleep(backoff, undefined, { signal: this.#stopped.signal }).catch(() => undefined);
    }
  }

  async #deliverOnce(route: TopicRoute, event: CloudEvent): Promise<DeliveryResult> {
    const t0 = performance.now();
    const result = await this.deps.app.deliver(route, event, this.#policy.timeoutMs, this.#cancelled.signal);
    this.#observe(result, (performance.now() - t0) / 1000);
    return result;
  }

  #observe(result: DeliveryResult, seconds: number): void {
    this.deps.metrics.deliveryLatency.observe(this.#labels, seconds);
    this.deps.metrics.delivered.inc({ ...this.#labels, outcome: result.outcome });
  }

  /** Moves the event to the dead-letter topic, if any (a failure there leaves it unacknowledged with the broker). */
  async #deadLetterOrDrop(event: CloudEvent, why: DeliveryResult): Promise<void> {
    const topic = this.sub.deadLetterTopic;
    if (!topic) {
      this.deps.log.warn({ ...this.#labels, id: event.id, reason: why.detail }, 'message dropped');
      return;
    }
    try {
      await this.target.pubsub.publish({ topic, data: Buffer.from(JSON.stringify(event)), contentType: CLOUDEVENT_CONTENT_TYPE, metadata: {} });
    } catch (err) {
      throw new Error(`could not move the message to dead-letter topic ${topic}: ${ensureError(err).message}`, { cause: err });
    }
    this.deps.metrics.deadLettered.inc(this.#labels);
    this.deps.log.info({ ...this.#labels, id: event.id, deadLetterTopic: topic, reason: why.detail }, 'message moved to the dead-letter topic');
  }
}
