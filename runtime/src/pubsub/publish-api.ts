/**
 * Publishing, free of any transport: the HTTP routes (and the gRPC API) call this. A message is wrapped in a
 * CloudEvent unless it is one already or `rawPayload` is asked for; it is acknowledged once the broker has it.
 */
import { RuntimeError, ensureError, isRuntimeError } from '../errors/runtime-error.js';
import { CLOUDEVENT_CONTENT_TYPE, completeCloudEvent, isCloudEventContentType, parseCloudEvent, withExpiry, wrapInCloudEvent, type CloudEvent, type EnvelopeContext } from '../app/cloudevents.js';
import type { PubSubMetrics } from './metrics.js';
import type { LoadedPubSub, PubSubs } from './pubsubs.js';
import type { BulkPublishMessage, FailedEntry } from '../components/contracts/pubsub.js';
import type { Resiliency } from '../resiliency/resiliency.js';
import { tracingEnabled } from '../tracing/enabled.js';
import { publishSpan } from '../tracing/messaging.js';
import { traceHeaders } from '../tracing/propagation.js';
import { inSpan } from '../tracing/spans.js';

export interface PublishInput {
  readonly data: Buffer;
  /** The publisher's content type; `text/plain` is assumed when absent, as Dapr SDKs expect. */
  readonly contentType: string | undefined;
  readonly metadata: Readonly<Record<string, string>>;
  readonly traceparent?: string;
  readonly tracestate?: string;
}

export interface BulkPublishEntry extends PublishInput {
  readonly entryId: string;
}

export interface BulkPublishResult {
  readonly failedEntries: FailedEntry[];
}

/**
 * Entries of one bulk publish handed to a broker without a bulk call at once, at most. All at once, the 120,000
 * entries that fit a 4 MiB request took svcd from 87 to 480 MiB (each a pending command and promise); a few such
 * requests side by side would take gigabytes. Enough in flight to keep the broker's connection busy.
 */
const BULK_ENTRIES_IN_FLIGHT = 64;

/** Reads `ttlInSeconds` (a positive whole number of seconds) or fails with ERR_PUBSUB_REQUEST_METADATA. */
function ttlSeconds(metadata: Readonly<Record<string, string>>): number | undefined {
  const text = metadata.ttlInSeconds;
  if (text === undefined || text === '') return undefined;
  if (!/^[1-9][0-9]{0,9}$/.test(text)) throw new RuntimeError('ERR_PUBSUB_REQUEST_METADATA', `metadata ttlInSeconds '${text}' must be a positive whole number of seconds`);
  return Number(text);
}

/** A bulk entry's metadata over the request's. */
function entryMetadata(entry: BulkPublishEntry, metadata: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  return { ...metadata, ...entry.metadata };
}

export class PublishApi {
  constructor(
    private readonly pubsubs: PubSubs,
    private readonly appId: string,
    private readonly metrics: PubSubMetrics,
    /** The Resiliency policies in force: each pub/sub's outbound policy applies to publishing. */
    private readonly resiliency?: () => Resiliency,
  ) {}

  async publish(pubsubName: string, topic: string, input: PublishInput): Promise<void> {
    const target = this.pubsubs.resolve(pubsubName, topic, 'publish');
    if (!tracingEnabled()) return this.#send(target, topic, this.#message(pubsubName, topic, input), input.metadata);
    // The event carries the publish span's context: the subscriber's delivery continues this trace.
    await inSpan(publishSpan({ componentType: target.spec.type, pubsubName, topic }), () =>
      this.#send(target, topic, this.#message(pubsubName, topic, { ...input, ...traceHeaders() }), input.metadata),
    );
  }

  /** Every entry is tried (BULK_ENTRIES_IN_FLIGHT at a time); the result lists those the broker did not take, with the reason. */
  async bulkPublish(pubsubName: string, topic: string, entries: readonly BulkPublishEntry[], metadata: Readonly<Record<string, string>>): Promise<BulkPublishResult> {
    const target = this.pubsubs.resolve(pubsubName, topic, 'publish');
    if (!tracingEnabled()) return this.#bulkPublish(target, pubsubName, topic, entries, metadata);
    return inSpan(publishSpan({ componentType: target.spec.type, pubsubName, topic }, entries.length), () => {
      const trace = traceHeaders();
      return this.#bulkPublish(target, pubsubName, topic, entries.map((e) => ({ ...e, ...trace })), metadata);
    });
  }

  async #bulkPublish(target: LoadedPubSub, pubsubName: string, topic: string, entries: readonly BulkPublishEntry[], metadata: Readonly<Record<string, string>>): Promise<BulkPublishResult> {
    const seen = new Set<string>();
    for (const e of entries) {
      if (e.entryId === '') throw new RuntimeError('ERR_PUBSUB_EVENTS_SER', 'every entry needs an entryId');
      if (seen.has(e.entryId)) throw new RuntimeError('ERR_PUBSUB_EVENTS_SER', `entryId ${e.entryId} appears more than once`);
      seen.add(e.entryId);
    }
    // Every entry is checked before any is sent: a malformed one fails the request, none published. An entry's
    // envelope is made only when it is sent, so one request holds at most BULK_ENTRIES_IN_FLIGHT envelopes (made all
    // at once, the 120,000 that fit a 4 MiB request held 30 MiB more, and their garbage once took svcd to 415 MiB).
    for (const e of entries) this.#check(e, entryMetadata(e, metadata));
    const message = (e: BulkPublishEntry): BulkPublishMessage => {
      const merged = entryMetadata(e, metadata);
      return { entryId: e.entryId, metadata: merged, ...this.#message(pubsubName, topic, { ...e, metadata: merged }) };
    };
    if (target.pubsub.bulkPublish) return { failedEntries: await this.#sendBulk(target, topic, entries.map(message), metadata) };
    const errors: (string | undefined)[] = new Array<string | undefined>(entries.length);
    let next = 0;
    const sender = async (): Promise<void> => {
      for (let i = next++; i < entries.length; i = next++) {
        const m = message(entries[i]!);
        await this.#send(target, topic, m, m.metadata).catch((err: unknown) => (errors[i] = ensureError(err).message));
      }
    };
    await Promise.all(Array.from({ length: Math.min(BULK_ENTRIES_IN_FLIGHT, entries.length) }, sender));
    const failedEntries = entries.flatMap((e, i) => (errors[i] === undefined ? [] : [{ entryId: e.entryId, error: errors[i] }]));
    return { failedEntries };
  }

  /** One call to a broker that takes bulks; a failed call fails every entry. */
  async #sendBulk(target: LoadedPubSub, topic: string, messages: readonly BulkPublishMessage[], metadata: Readonly<Record<string, string>>): Promise<FailedEntry[]> {
    const labels = { pubsub: target.spec.name, topic };
    let failed: FailedEntry[];
    try {
      failed = await target.pubsub.bulkPublish!(topic, messages, metadata);
    } catch (err) {
      const error = ensureError(err).message;
      failed = messages.map((m) => ({ entryId: m.entryId, error }));
    }
    this.metrics.published.inc({ ...labels, success: 'false' }, failed.length);
    this.metrics.published.inc({ ...labels, success: 'true' }, messages.length - failed.length);
    return failed;
  }

  /** Fails as `#message` would for this input, without making its envelope. */
  #check(input: PublishInput, metadata: Readonly<Record<string, string>>): void {
    ttlSeconds(metadata);
    if (metadata.rawPayload !== 'true' && isCloudEventContentType(input.contentType)) parseCloudEvent(input.data);
  }

  #message(pubsubName: string, topic: string, input: PublishInput): { data: Buffer; contentType: string } {
    const ttl = ttlSeconds(input.metadata);
    if (input.metadata.rawPayload === 'true') return { data: input.data, contentType: input.contentType || 'application/octet-stream' };
    const ctx: EnvelopeContext = {
      appId: this.appId,
      pubsubName,
      topic,
      ...(input.traceparent ? { traceparent: input.traceparent } : {}),
      ...(input.tracestate ? { tracestate: input.tracestate } : {}),
    };
    let event: CloudEvent = isCloudEventContentType(input.contentType) ? completeCloudEvent(input.data, ctx) : wrapInCloudEvent(input.data, input.contentType, ctx);
    if (ttl !== undefined) event = withExpiry(event, ttl);
    return { data: Buffer.from(JSON.stringify(event)), contentType: CLOUDEVENT_CONTENT_TYPE };
  }

  async #send(target: LoadedPubSub, topic: string, message: { data: Buffer; contentType: string }, metadata: Readonly<Record<string, string>>): Promise<void> {
    const labels = { pubsub: target.spec.name, topic };
    const publish = () => target.pubsub.publish({ topic, data: message.data, contentType: message.contentType, metadata });
    const policy = this.resiliency?.().forComponent(target.spec.name, 'outbound');
    try {
      // Retried on the broker's failures: delivery is at least once anyway, so a publish repeated after a timeout
      // that did reach the broker is a duplicate subscribers already handle.
      await (policy ? policy.run(publish, { retryable: (err) => !(isRuntimeError(err) && err.httpStatus < 500) }) : publish());
      this.metrics.published.inc({ ...labels, success: 'true' });
    } catch (err) {
      this.metrics.published.inc({ ...labels, success: 'false' });
      // A component's own coded error (a pluggable component's status, a reply too large) keeps its code.
      if (isRuntimeError(err) && err.code !== 'ERROR') throw err;
      throw new RuntimeError('ERR_PUBSUB_PUBLISH_MESSAGE', `error when publishing to topic ${topic} in pubsub ${target.spec.name}: ${ensureError(err).message}`, { cause: err });
    }
  }
}
