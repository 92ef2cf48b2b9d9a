/**
 * The app channel over gRPC (`--app-protocol grpc`): svcd calls the app's `dapr.proto.runtime.v1.AppCallback`
 * (as the Dapr SDKs' gRPC servers serve it) — ListTopicSubscriptions, OnTopicEvent, OnBulkTopicEvent (or
 * AppCallbackAlpha's OnBulkTopicEventAlpha1), ListInputBindings, OnBindingEvent, OnJobEvent (or OnJobEventAlpha1).
 * The answers map as over HTTP:
 * SUCCESS / RETRY / DROP per event; a failed call (no answer in time, UNAVAILABLE, any error) is a retry.
 */
import * as grpc from '@grpc/grpc-js';
import {
  loadAppCallbackProto,
  type AppCallbackAlphaClient,
  type AppCallbackClient,
  type AppCallbackHealthCheckClient,
  type BindingEventResponse__Output,
  type JobEventRequest,
  type ListInputBindingsResponse__Output,
  type ListTopicSubscriptionsResponse__Output,
  type TopicEventBulkRequest,
  type TopicEventBulkResponse__Output,
  type TopicEventRequest,
  type TopicEventResponse__Output,
} from '@svc/proto';
import { randomUUID } from 'node:crypto';
import { ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import type { CloudEvent } from './cloudevents.js';
import { ceFields } from './topic-event-wire.js';
import { statusOutcome, type AppEvents, type BindingEvent, type BulkEntry, type DeliveryResult, type JobDeliveryResult, type JobPayload, type TopicRoute } from './app-events.js';

type Invoke<Res> = (md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: Res) => void) => grpc.ClientUnaryCall;

/** One unary call with a deadline; `signal` cancels it (it fails with CANCELLED). */
function call<Res>(invoke: Invoke<Res>, timeoutMs: number, signal?: AbortSignal): Promise<Res> {
  return new Promise((resolve, reject) => {
    const cancel = () => unary.cancel();
    const unary = invoke(new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
      signal?.removeEventListener('abort', cancel);
      if (err) reject(err);
      else resolve(res!);
    });
    if (signal?.aborted) cancel();
    else signal?.addEventListener('abort', cancel, { once: true });
  });
}

const codeOf = (err: unknown): number | undefined => (err as { code?: unknown }).code as number | undefined;

export class GrpcAppEvents implements AppEvents {
  readonly #app: AppCallbackClient;
  readonly #alpha: AppCallbackAlphaClient;
  readonly #health: AppCallbackHealthCheckClient;

  constructor(
    port: number,
    private readonly log: Logger,
  ) {
    const proto = loadAppCallbackProto();
    const address = `127.0.0.1:${port}`;
    this.#app = new proto.AppCallback(address, grpc.credentials.createInsecure());
    // Same address, same options: grpc-js shares one connection between the two clients.
    this.#alpha = new proto.AppCallbackAlpha(address, grpc.credentials.createInsecure());
    this.#health = new proto.AppCallbackHealthCheck(address, grpc.credentials.createInsecure());
  }

  async healthCheck(_path: string, timeoutMs: number): Promise<boolean> {
    try {
      await call<object>((md, o, cb) => this.#health.HealthCheck({}, md, o, cb), timeoutMs);
      return true;
    } catch {
      return false;
    }
  }

  async subscriptions(waitMs: number): Promise<{ entries: unknown[]; source: string }> {
    const source = "the app's ListTopicSubscriptions";
    const deadline = Date.now() + waitMs;
    for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
      try {
        const res = await call<ListTopicSubscriptionsResponse__Output>((md, o, cb) => this.#app.ListTopicSubscriptions({}, md, o, cb), 5000);
        const entries = res.subscriptions.map((s) => ({
          pubsubname: s.pubsubName,
          topic: s.topic,
          metadata: s.metadata,
          routes: { rules: s.routes?.rules ?? [], ...(s.routes?.default ? { default: s.routes.default } : {}) },
          ...(s.deadLetterTopic ? { deadLetterTopic: s.deadLetterTopic } : {}),
          ...(s.bulkSubscribe?.enabled
            ? { bulkSubscribe: { enabled: true, ...(s.bulkSubscribe.maxMessagesCount > 0 ? { maxMessagesCount: s.bulkSubscribe.maxMessagesCount } : {}), ...(s.bulkSubscribe.maxAwaitDurationMs > 0 ? { maxAwaitDurationMs: s.bulkSubscribe.maxAwaitDurationMs } : {}) } }
            : {}),
        }));
        return { entries, source };
      } catch (err) {
        if (codeOf(err) === grpc.status.UNIMPLEMENTED) return { entries: [], source };
        if (Date.now() + delay > deadline) {
          this.log.error({ err: ensureError(err).message }, 'could not read the app subscriptions (ListTopicSubscriptions): no programmatic subscriptions');
          return { entries: [], source };
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  async deliver(route: TopicRoute, event: CloudEvent, timeoutMs: number, signal: AbortSignal): Promise<DeliveryResult> {
    const req: TopicEventRequest = { ...ceFields(event), topic: route.topic, pubsubName: route.pubsubName, path: route.path };
    try {
      const res = await call<TopicEventResponse__Output>((md, o, cb) => this.#app.OnTopicEvent(req, md, o, cb), timeoutMs, signal);
      const outcome = statusOutcome(res.status) ?? 'retry';
      return { outcome, detail: `the app answered ${res.status}` };
    } catch (err) {
      return { outcome: 'retry', detail: `OnTopicEvent failed: ${ensureError(err).message}` };
    }
  }

  async deliverBulk(route: TopicRoute, entries: readonly BulkEntry[], timeoutMs: number, signal: AbortSignal): Promise<Map<string, DeliveryResult>> {
    const all = (result: DeliveryResult) => new Map(entries.map((e) => [e.entryId, result]));
    const req: TopicEventBulkRequest = {
      id: randomUUID(),
      entries: entries.map((e) =>
        Buffer.isBuffer(e.event)
          ? { entryId: e.entryId, bytes: e.event, contentType: 'application/octet-stream', metadata: {} }
          : { entryId: e.entryId, cloudEvent: ceFields(e.event), contentType: 'application/cloudevents+json', metadata: {} },
      ),
      metadata: {},
      topic: route.topic,
      pubsubName: route.pubsubName,
      type: 'com.dapr.event.sent.bulk',
      path: route.path,
    };
    let res: TopicEventBulkResponse__Output;
    try {
      res = await call<TopicEventBulkResponse__Output>((md, o, cb) => this.#app.OnBulkTopicEvent(req, md, o, cb), timeoutMs, signal).catch((err: unknown) => {
        // SDKs that predate the stable name serve only AppCallbackAlpha.
        if (codeOf(err) !== grpc.status.UNIMPLEMENTED) throw err;
        return call<TopicEventBulkResponse__Output>((md, o, cb) => this.#alpha.OnBulkTopicEventAlpha1(req, md, o, cb), timeoutMs, signal);
      });
    } catch (err) {
      return all({ outcome: 'retry', detail: `OnBulkTopicEvent failed: ${ensureError(err).message}` });
    }
    const out = all({ outcome: 'retry', detail: 'the app did not answer for this entry' });
    for (const s of res.statuses) {
      const outcome = statusOutcome(s.status);
      if (out.has(s.entryId) && outcome) out.set(s.entryId, { outcome, detail: `the app answered ${s.status}` });
    }
    return out;
  }

  async listensForBinding(name: string): Promise<boolean> {
    try {
      const res = await call<ListInputBindingsResponse__Output>((md, o, cb) => this.#app.ListInputBindings({}, md, o, cb), 5000);
      return res.bindings.includes(name);
    } catch (err) {
      return codeOf(err) !== grpc.status.UNIMPLEMENTED; // not answering yet: deliveries retry until it does
    }
  }

  async deliverBinding(name: string, _path: string, event: BindingEvent, timeoutMs: number): Promise<{ taken: true; reply: Buffer } | { taken: false; reason: string }> {
    try {
      const res = await call<BindingEventResponse__Output>((md, o, cb) => this.#app.OnBindingEvent({ name, data: event.data, metadata: { ...event.metadata } }, md, o, cb), timeoutMs);
      return { taken: true, reply: res.data };
    } catch (err) {
      return { taken: false, reason: `OnBindingEvent failed: ${ensureError(err).message}` };
    }
  }

  async deliverJob(name: string, data: JobPayload | undefined, timeoutMs: number): Promise<JobDeliveryResult> {
    const req: JobEventRequest = {
      name,
      ...(data && { data: { type_url: data.typeUrl, value: data.value } }),
      method: `job/${name}`,
      contentType: data?.typeUrl ?? '',
      httpExtension: { verb: 'POST' },
    };
    try {
      await call<object>((md, o, cb) => this.#app.OnJobEvent(req, md, o, cb), timeoutMs).catch((err: unknown) => {
        // SDKs that predate the stable name serve only AppCallbackAlpha.
        if (codeOf(err) !== grpc.status.UNIMPLEMENTED) throw err;
        return call<object>((md, o, cb) => this.#alpha.OnJobEventAlpha1(req, md, o, cb), timeoutMs);
      });
      return { outcome: 'taken' };
    } catch (err) {
      return { outcome: codeOf(err) === grpc.status.UNAVAILABLE ? 'unreachable' : 'failed', reason: `OnJobEvent failed: ${ensureError(err).message}` };
    }
  }

  close(): void {
    this.#app.close();
    this.#alpha.close();
    this.#health.close();
  }
}
