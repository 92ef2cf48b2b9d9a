/**
 * The app channel over HTTP, as Dapr apps serve it: `GET /dapr/subscribe`; each event POSTed to its route as
 * `application/cloudevents+json` (2xx with `{"status":"SUCCESS"}` or an empty or non-JSON body → success;
 * `RETRY` → retry; `DROP` or 404 → drop; any other status, no answer in time or no connection → retry); bulk
 * deliveries as `{entries, …}` with one status per entry; input binding events POSTed to their route with the
 * event's metadata as headers, after an `OPTIONS` probe (404: the app does not listen for that binding); job firings
 * POSTed to `/job/<name>` (2xx: taken).
 */
import { randomUUID } from 'node:crypto';
import { decodeJsonValue, JSON_VALUE_TYPE_URL } from '@svc/proto';
import { ensureError } from '../errors/runtime-error.js';
import { CLOUDEVENT_CONTENT_TYPE, type CloudEvent } from './cloudevents.js';
import type { Logger } from '../log/logger.js';
import { AppAnswerTooLargeError, appRequest, AppTimeoutError } from './app-http.js';
import { statusOutcome, type AppEvents, type BindingEvent, type BulkEntry, type DeliveryResult, type JobDeliveryResult, type JobPayload, type TopicRoute } from './app-events.js';

export const BULK_EVENT_TYPE = 'com.dapr.event.sent.bulk';

/** Headers that would change the request rather than describe the event. */
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'connection', 'transfer-encoding', 'keep-alive', 'expect', 'upgrade', 'te', 'trailer']);

type Answer = { status: number; text: string } | { error: string };

/** As the reference hands a job to an HTTP app: a google.protobuf.Value as its JSON, any other payload as its bytes. */
function jobBody(data: JobPayload | undefined): Buffer {
  if (!data) return Buffer.alloc(0);
  if (data.typeUrl === JSON_VALUE_TYPE_URL) return Buffer.from(JSON.stringify(decodeJsonValue(data.value)));
  return Buffer.from(data.value.toString('latin1').trim(), 'latin1');
}

/** No app listens (yet): it never saw the request. */
const isConnectionRefused = (e: Error) => (e as NodeJS.ErrnoException).code === 'ECONNREFUSED';

export class HttpAppEvents implements AppEvents {
  readonly #base: string;

  constructor(
    port: number,
    private readonly log: Logger,
    /** The largest answer read from the app (`--max-request-size`); a larger one is a failed call. */
    private readonly maxAnswerBytes: number,
  ) {
    this.#base = `http://127.0.0.1:${port}`;
  }

  async subscriptions(waitMs: number): Promise<{ entries: unknown[]; source: string }> {
    const source = "the app's /dapr/subscribe";
    const deadline = Date.now() + waitMs;
    for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
      const res = await this.#send('GET', '/dapr/subscribe', undefined, {}, 5000);
      if ('status' in res) {
        if (res.status === 404) return { entries: [], source };
        if (res.status < 200 || res.status > 299) {
          this.log.error({ status: res.status }, `GET /dapr/subscribe answered ${res.status}: no programmatic subscriptions`);
          return { entries: [], source };
        }
        let body: unknown;
        try {
          body = JSON.parse(res.text);
        } catch {
          body = undefined;
        }
        if (!Array.isArray(body)) {
          this.log.error('GET /dapr/subscribe did not answer a JSON list: no programmatic subscriptions');
          return { entries: [], source };
        }
        return { entries: body, source };
      }
      if (Date.now() + delay > deadline) {
        this.log.error({ err: res.error }, 'could not read the app subscriptions (GET /dapr/subscribe): no programmatic subscriptions');
        return { entries: [], source };
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  async deliver(route: TopicRoute, event: CloudEvent, timeoutMs: number, signal: AbortSignal): Promise<DeliveryResult> {
    const headers: Record<string, string> = { 'content-type': CLOUDEVENT_CONTENT_TYPE, pubsubname: route.pubsubName, topic: route.topic };
    if (typeof event.traceparent === 'string') headers.traceparent = event.traceparent;
    const res = await this.#send('POST', route.path, JSON.stringify(event), headers, timeoutMs, signal);
    if ('error' in res) return { outcome: 'retry', detail: res.error };
    if (res.status === 404) return { outcome: 'drop', detail: `the app answered 404 for ${route.path}` };
    if (res.status < 200 || res.status > 299) return { outcome: 'retry', detail: `the app answered ${res.status}` };
    const text = res.text.trim();
    if (text === '') return { outcome: 'success', detail: `${res.status}` };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { outcome: 'success', detail: `${res.status} (a body that is not JSON counts as success)` };
    }
    const status = (parsed as { status?: unknown } | null)?.status;
    if (status === undefined || status === '') return { outcome: 'success', detail: `${res.status}` };
    const outcome = statusOutcome(status);
    return outcome ? { outcome, detail: `the app answered ${JSON.stringify(status)}` } : { outcome: 'retry', detail: `the app answered an unknown status ${JSON.stringify(status)}` };
  }

  async deliverBulk(route: TopicRoute, entries: readonly BulkEntry[], timeoutMs: number, signal: AbortSignal): Promise<Map<string, DeliveryResult>> {
    const all = (result: DeliveryResult) => new Map(entries.map((e) => [e.entryId, result]));
    const body = JSON.stringify({
      id: randomUUID(),
      entries: entries.map((e) =>
        Buffer.isBuffer(e.event)
          ? { entryId: e.entryId, event: e.event.toString('base64'), contentType: 'application/octet-stream', metadata: {} }
          : { entryId: e.entryId, event: e.event, contentType: CLOUDEVENT_CONTENT_TYPE, metadata: {} },
      ),
      metadata: {},
      pubsubname: route.pubsubName,
      topic: route.topic,
      type: BULK_EVENT_TYPE,
    });
    const res = await this.#send('POST', route.path, body, { 'content-type': 'application/json' }, timeoutMs, signal);
    if ('error' in res) return all({ outcome: 'retry', detail: res.error });
    if (res.status === 404) return all({ outcome: 'drop', detail: `the app answered 404 for ${route.path}` });
    if (res.status < 200 || res.status > 299) return all({ outcome: 'retry', detail: `the app answered ${res.status}` });
    let statuses: unknown;
    try {
      statuses = (JSON.parse(res.text) as { statuses?: unknown }).statuses;
    } catch {
      return all({ outcome: 'retry', detail: 'the app answered a bulk delivery without a JSON body' });
    }
    const out = all({ outcome: 'retry', detail: 'the app did not answer for this entry' });
    for (const s of Array.isArray(statuses) ? statuses : []) {
      const entry = s as { entryId?: unknown; status?: unknown };
      const outcome = statusOutcome(entry.status);
      if (typeof entry.entryId === 'string' && out.has(entry.entryId) && outcome) out.set(entry.entryId, { outcome, detail: `the app answered ${String(entry.status)}` });
    }
    return out;
  }

  async listensForBinding(_name: string, path: string): Promise<boolean> {
    const res = await this.#send('OPTIONS', path, undefined, {}, 5000);
    return !('status' in res) || res.status !== 404; // not answering yet: deliveries retry until it does
  }

  async deliverBinding(_name: string, path: string, event: BindingEvent, timeoutMs: number): Promise<{ taken: true; reply: Buffer } | { taken: false; reason: string }> {
    const headers: Record<string, string> = { 'content-type': event.contentType || 'application/json' };
    // As Dapr apps read them: each metadata entry a header of its own name (none that would change the request).
    for (const [k, v] of Object.entries(event.metadata)) if (/^[\w.-]+$/.test(k) && !RESERVED_HEADERS.has(k.toLowerCase()) && /^[\t\x20-\x7e]*$/.test(v)) headers[k] = v;
    try {
      const res = await appRequest(this.#base + path, { method: 'POST', body: event.data, headers, timeoutMs, maxBodyBytes: this.maxAnswerBytes });
      if (res.status >= 200 && res.status <= 299) return { taken: true, reply: res.body };
      return { taken: false, reason: `the app answered ${res.status}` };
    } catch (err) {
      return { taken: false, reason: `cannot deliver to the app: ${ensureError(err).message}` };
    }
  }

  async deliverJob(name: string, data: JobPayload | undefined, timeoutMs: number): Promise<JobDeliveryResult> {
    try {
      const res = await appRequest(`${this.#base}/job/${encodeURIComponent(name)}`, { method: 'POST', body: jobBody(data), headers: { 'content-type': 'application/json' }, timeoutMs, maxBodyBytes: this.maxAnswerBytes });
      return res.status >= 200 && res.status <= 299 ? { outcome: 'taken' } : { outcome: 'failed', reason: `the app answered ${res.status}` };
    } catch (err) {
      const e = ensureError(err);
      return { outcome: isConnectionRefused(e) ? 'unreachable' : 'failed', reason: `cannot deliver to the app: ${e.message}` };
    }
  }

  async healthCheck(path: string, timeoutMs: number): Promise<boolean> {
    const res = await this.#send('GET', path, undefined, {}, timeoutMs);
    return 'status' in res && res.status >= 200 && res.status <= 299;
  }

  async #send(method: string, path: string, body: string | undefined, headers: Record<string, string>, timeoutMs: number, signal?: AbortSignal): Promise<Answer> {
    try {
      const res = await appRequest(this.#base + path, { method, ...(body !== undefined ? { body } : {}), headers, timeoutMs, maxBodyBytes: this.maxAnswerBytes, ...(signal ? { signal } : {}) });
      return { status: res.status, text: res.body.toString('utf8') };
    } catch (err) {
      const e = ensureError(err);
      if (signal?.aborted) return { error: 'cancelled: svcd is stopping' };
      // Not a network hiccup but the app's doing, retried until it stops: said where an operator looks.
      if (e instanceof AppAnswerTooLargeError) this.log.warn({ method, path, maxBytes: e.maxBodyBytes }, e.message);
      return { error: e instanceof AppTimeoutError || e instanceof AppAnswerTooLargeError ? e.message : `cannot reach the app: ${e.message}` };
    }
  }
}
