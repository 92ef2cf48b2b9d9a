/**
 * `SubscribeTopicEventsAlpha1`: a streaming subscription. The client's first message names the pub/sub and topic
 * (and dead-letter topic, metadata); svcd answers `initial_response` once subscribed, then sends each event as
 * an `event_message` and waits for the client's `event_processed` with the event's id and status — SUCCESS,
 * RETRY, DROP, as from an app. Delivery rules are a subscription's like any other (backoff, dead letters,
 * `deliveryTimeout`, bounded concurrency); the subscription ends with the stream, and what was not acknowledged
 * stays with the broker.
 */
import type * as grpc from '@grpc/grpc-js';
import type { SubscribeTopicEventsRequestAlpha1__Output } from '@svc/proto/gen/svc/proto/runtime/v1/SubscribeTopicEventsRequestAlpha1.js';
import type { SubscribeTopicEventsResponseAlpha1 } from '@svc/proto/gen/svc/proto/runtime/v1/SubscribeTopicEventsResponseAlpha1.js';
import { statusOutcome, type BulkEntry, type DeliveryResult, type TopicDelivery, type TopicRoute } from '../../../app/app-events.js';
import { ceFields } from '../../../app/topic-event-wire.js';
import { RuntimeError, ensureError } from '../../../errors/runtime-error.js';
import type { CloudEvent } from '../../../app/cloudevents.js';
import type { Subscription } from '../../../pubsub/subscriptions.js';
import { authorized, serviceError, UNAUTHENTICATED } from '../call-guard.js';
import { malformedRequestError } from '../malformed-request.js';

type Stream = grpc.ServerDuplexStream<SubscribeTopicEventsRequestAlpha1__Output, SubscribeTopicEventsResponseAlpha1>;

export interface StreamingSubscriptions {
  subscribeStream(sub: Subscription, delivery: TopicDelivery): Promise<{ stop(): Promise<void> }>;
}

/** The events sent on one stream and waiting for their `event_processed`, by event id. */
class StreamDelivery implements TopicDelivery {
  readonly #waiting = new Map<string, ((r: DeliveryResult) => void)[]>();
  #gone: string | undefined;

  constructor(private readonly stream: Stream) {}

  deliver(route: TopicRoute, event: CloudEvent, timeoutMs: number, signal: AbortSignal): Promise<DeliveryResult> {
    if (this.#gone) return Promise.resolve({ outcome: 'retry', detail: this.#gone });
    if (signal.aborted) return Promise.resolve({ outcome: 'retry', detail: 'cancelled: svcd is stopping' });
    return new Promise<DeliveryResult>((resolve) => {
      const cancel = () => settle({ outcome: 'retry', detail: 'cancelled: svcd is stopping' });
      const settle = (r: DeliveryResult) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', cancel);
        const list = this.#waiting.get(event.id)?.filter((w) => w !== settle) ?? [];
        if (list.length > 0) this.#waiting.set(event.id, list);
        else this.#waiting.delete(event.id);
        resolve(r);
      };
      const timer = setTimeout(() => settle({ outcome: 'retry', detail: `the subscriber did not answer within ${timeoutMs} ms` }), timeoutMs);
      signal.addEventListener('abort', cancel, { once: true });
      this.#waiting.set(event.id, [...(this.#waiting.get(event.id) ?? []), settle]);
      this.stream.write({ eventMessage: { ...ceFields(event), topic: route.topic, pubsubName: route.pubsubName, path: route.path } });
    });
  }

  /** Streaming subscriptions have no bulk form: entries go one by one. */
  async deliverBulk(route: TopicRoute, entries: readonly BulkEntry[], timeoutMs: number, signal: AbortSignal): Promise<Map<string, DeliveryResult>> {
    const out = new Map<string, DeliveryResult>();
    for (const e of entries) {
      out.set(e.entryId, Buffer.isBuffer(e.event) ? { outcome: 'drop', detail: 'raw payloads cannot go to a streaming subscription' } : await this.deliver(route, e.event, timeoutMs, signal));
    }
    return out;
  }

  processed(id: string, status: string): void {
    const outcome = statusOutcome(status) ?? 'retry';
    this.#waiting.get(id)?.[0]?.({ outcome, detail: `the subscriber answered ${status}` });
  }

  /** The stream ended: what waits is retried (and then left with the broker, as the subscription stops). */
  end(why: string): void {
    this.#gone = why;
    for (const list of [...this.#waiting.values()]) for (const w of list) w({ outcome: 'retry', detail: why });
  }
}

export function subscribeStreamHandler(subscriptions: StreamingSubscriptions, apiToken: string | undefined): grpc.handleBidiStreamingCall<SubscribeTopicEventsRequestAlpha1__Output, SubscribeTopicEventsResponseAlpha1> {
  return (stream: Stream) => {
    if (!authorized(stream, apiToken)) {
      stream.emit('error', UNAUTHENTICATED);
      return;
    }
    const delivery = new StreamDelivery(stream);
    let subscription: Promise<{ stop(): Promise<void> } | undefined> | undefined;
    let closed = false;
    const close = (why: string, err?: unknown) => {
      if (closed) return;
      closed = true;
      delivery.end(why);
      void subscription?.then((s) => s?.stop());
      if (err !== undefined) stream.emit('error', serviceError(err));
      else if (!stream.cancelled) stream.end();
    };
    stream.on('data', (req: SubscribeTopicEventsRequestAlpha1__Output) => {
      const malformed = malformedRequestError(req);
      if (malformed) {
        close('a malformed request', malformed);
        return;
      }
      if (req.initialRequest && !subscription) {
        const init = req.initialRequest;
        const sub: Subscription = {
          pubsubName: init.pubsubName,
          topic: init.topic,
          rules: [],
          defaultPath: '',
          deadLetterTopic: init.deadLetterTopic || undefined,
          metadata: init.metadata,
          bulk: undefined,
          kind: 'streaming',
          source: 'a streaming subscription (SubscribeTopicEventsAlpha1)',
        };
        subscription = (async () => {
          if (sub.pubsubName === '' || sub.topic === '') throw new RuntimeError('ERR_MALFORMED_REQUEST', 'the initial request needs pubsub_name and topic');
          const s = await subscriptions.subscribeStream(sub, delivery);
          stream.write({ initialResponse: {} });
          return s;
        })().catch((err: unknown) => {
          close(ensureError(err).message, err);
          return undefined;
        });
        return;
      }
      if (req.eventProcessed && subscription) {
        delivery.processed(req.eventProcessed.id, req.eventProcessed.status?.status ?? 'SUCCESS');
        return;
      }
      close('a malformed request', new RuntimeError('ERR_MALFORMED_REQUEST', 'the first message must be initial_request, then only event_processed'));
    });
    stream.on('end', () => close('the subscriber closed the stream'));
    stream.on('cancelled', () => close('the subscriber cancelled the stream'));
    stream.on('error', () => close('the stream failed'));
  };
}
