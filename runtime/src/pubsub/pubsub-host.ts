/**
 * The subscriptions of this app, started once the components are up and the app answers: programmatic ones from
 * the app's `GET /dapr/subscribe`, declarative ones from `Subscription` resources. A subscription that cannot run
 * (unknown pub/sub, forbidden topic, an invalid entry) is logged as an error naming its source and left out; the
 * others run. Stopped before the components close.
 */
import { ensureError } from '../errors/runtime-error.js';
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
  readonly appWaitMs: number;
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
        const runner = new SubscriptionRunner(sub, target, { appId: this.opts.appId, appBaseUrl: `http://127.0.0.1:${this.opts.appPort}`, metrics: this.opts.metrics, log });
        await runner.start();
        this.#runners.push(runner);
        taken.add(key);
        log.info({ pubsub: sub.pubsubName, topic: sub.topic, kind: sub.kind }, 'subscribed');
      } catch (err) {
        log.error({ pubsub: sub.pubsubName, topic: sub.topic, source: sub.source, err: ensureError(err).message }, 'subscription not started');
      }
    }
  }

  async stop(): Promise<void> {
    const runners = this.#runners;
    this.#runners = [];
    await Promise.all(runners.map((r) => r.stop()));
  }

  /** For `/v1.0/metadata`. */
  metadata(): { subscriptions: Record<string, unknown>[] } {
    return { subscriptions: this.#runners.map((r) => subscriptionMetadata(r.sub)) };
  }

  /** The app's `GET /dapr/subscribe`, waiting while it does not listen yet; 404 means none. */
  async #programmatic(): Promise<Subscription[]> {
    const { log } = this.opts;
    const url = `http://127.0.0.1:${this.opts.appPort}/dapr/subscribe`;
    const deadline = Date.now() + this.opts.appWaitMs;
    let body: unknown;
    for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
        if (res.status === 404) return [];
        if (!res.ok) {
          log.error({ status: res.status }, `GET /dapr/subscribe answered ${res.status}: no programmatic subscriptions`);
          return [];
        }
        body = await res.json();
        break;
      } catch (err) {
        if (Date.now() + delay > deadline || ensureError(err).name === 'SyntaxError') {
          log.error({ err: ensureError(err).message }, 'could not read the app subscriptions (GET /dapr/subscribe): no programmatic subscriptions');
          return [];
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
    if (!Array.isArray(body)) {
      log.error('GET /dapr/subscribe did not answer a JSON list: no programmatic subscriptions');
      return [];
    }
    return body.flatMap((entry: unknown, i) => {
      try {
        return [parseSubscription(entry, 'programmatic', `the app's /dapr/subscribe (entry ${i + 1})`)];
      } catch (err) {
        log.error({ err: ensureError(err).message }, 'invalid subscription left out');
        return [];
      }
    });
  }
}
