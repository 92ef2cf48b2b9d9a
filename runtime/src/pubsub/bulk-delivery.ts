/**
 * Bulk subscribe: a subscription's messages gathered, per route, into one delivery of up to `maxMessagesCount`
 * entries, sent when full or `maxAwaitDurationMs` after its first entry. The app answers one status per entry;
 * entries to retry go again together after the backoff, so each message gets the same SUCCESS / RETRY / DROP
 * handling as a single delivery. The envelope on the wire is the app channel's (HTTP: `{id, entries, …}`, gRPC:
 * OnBulkTopicEvent).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BulkEntry, DeliveryResult, TopicDelivery } from '../app/app-events.js';
import type { AppGate } from '../app/app-health.js';
import { retryDelay, type DeliveryPolicy } from '../delivery/policy.js';
import type { CloudEvent } from '../app/cloudevents.js';
import type { BulkSubscribeOptions, Subscription } from './subscriptions.js';

/** What becomes of one entry once the app has answered for it (or the attempts ran out). */
export interface BulkOutcomes {
  /** Counts one answer for one entry (metrics). */
  observed(result: DeliveryResult, latencySeconds: number): void;
  /** DROP, or out of attempts with a dead-letter topic: resolves once the event is dead-lettered (or dropped). */
  deadLetterOrDrop(event: CloudEvent, why: DeliveryResult): Promise<void>;
}

interface Pending {
  readonly entry: BulkEntry;
  /** The CloudEvent, for the dead-letter topic (also of a raw entry). */
  readonly event: CloudEvent;
  readonly done: { resolve(): void; reject(err: Error): void };
}

interface Batch {
  readonly entries: Pending[];
  readonly timer: NodeJS.Timeout;
}

export class BulkDelivery {
  /** The batch being gathered for each route. */
  readonly #open = new Map<string, Batch>();

  constructor(
    private readonly sub: Subscription,
    private readonly options: BulkSubscribeOptions,
    private readonly policy: DeliveryPolicy,
    private readonly app: TopicDelivery,
    private readonly gate: AppGate,
    private readonly outcomes: BulkOutcomes,
    /** `stopped`: no new attempt starts; `cancelled`: attempts in flight are abandoned (the grace period is over). */
    private readonly signals: { readonly stopped: AbortSignal; readonly cancelled: AbortSignal },
  ) {}

  /**
   * Resolves when the app took the entry (or it was dropped or dead-lettered); rejects to leave it with the broker.
   * `payload` is what the app gets: the CloudEvent, or with `rawPayload` the message's bytes.
   */
  add(path: string, payload: CloudEvent | Buffer, event: CloudEvent): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let batch = this.#open.get(path);
      if (!batch) {
        batch = { entries: [], timer: setTimeout(() => this.#flush(path), this.options.maxAwaitDurationMs) };
        this.#open.set(path, batch);
      }
      batch.entries.push({ entry: { entryId: randomUUID(), event: payload }, event, done: { resolve, reject } });
      if (batch.entries.length >= this.options.maxMessagesCount) this.#flush(path);
    });
  }

  #flush(path: string): void {
    const batch = this.#open.get(path);
    if (!batch) return;
    this.#open.delete(path);
    clearTimeout(batch.timer);
    void this.#deliver(path, batch.entries).catch((err: Error) => {
      for (const p of batch.entries) p.done.reject(err);
    });
  }

  async #deliver(path: string, first: Pending[]): Promise<void> {
    const route = { pubsubName: this.sub.pubsubName, topic: this.sub.topic, path };
    let pending = first;
    for (let attempt = 1; ; attempt++) {
      await this.gate.whenHealthy(this.signals.stopped);
      if (this.signals.stopped.aborted) throw new Error('svcd is stopping; the broker keeps the messages');
      const t0 = performance.now();
      const results = await this.app.deliverBulk(route, pending.map((p) => p.entry), this.policy.timeoutMs, this.signals.cancelled);
      const latency = (performance.now() - t0) / 1000;
      const again: Pending[] = [];
      for (const p of pending) {
        const result = results.get(p.entry.entryId)!;
        this.outcomes.observed(result, latency);
        if (result.outcome === 'success') p.done.resolve();
        else if (result.outcome === 'drop') this.#settle(p, this.outcomes.deadLetterOrDrop(p.event, result));
        else if (attempt < this.policy.maxDeliveryAttempts) again.push(p);
        else if (this.sub.deadLetterTopic) this.#settle(p, this.outcomes.deadLetterOrDrop(p.event, result));
        else p.done.reject(new Error(`not delivered after ${attempt} attempts (${result.detail}); the broker keeps the message`));
      }
      if (again.length === 0) return;
      await sleep(retryDelay(this.policy, attempt), undefined, { signal: this.signals.stopped }).catch(() => undefined);
      pending = again;
    }
  }

  #settle(p: Pending, work: Promise<void>): void {
    work.then(
      () => p.done.resolve(),
      (err: Error) => p.done.reject(err),
    );
  }

  /** Gives what is still gathering back to the broker (svcd is stopping). */
  close(): void {
    for (const path of [...this.#open.keys()]) {
      const batch = this.#open.get(path)!;
      this.#open.delete(path);
      clearTimeout(batch.timer);
      for (const p of batch.entries) p.done.reject(new Error('svcd is stopping; the broker keeps the message'));
    }
  }
}
