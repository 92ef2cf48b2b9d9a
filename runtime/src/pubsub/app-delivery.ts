/**
 * Delivering events to the app over HTTP, and reading its answer as Dapr apps give it:
 * 2xx with `{"status":"SUCCESS"}` or an empty (or non-JSON) body → success; `RETRY` → retry; `DROP` → drop;
 * 404 → drop; any other status, no answer within the timeout, or a connection error → retry.
 */
import { appRequest, AppTimeoutError } from '../app/app-http.js';
import { ensureError } from '../errors/runtime-error.js';
import { CLOUDEVENT_CONTENT_TYPE } from './cloudevents.js';

export type DeliveryOutcome = 'success' | 'retry' | 'drop';

export interface DeliveryResult {
  readonly outcome: DeliveryOutcome;
  /** Why, for logs: the status, the app's word, the error. */
  readonly detail: string;
}

const STATUS_OUTCOMES: Record<string, DeliveryOutcome> = { SUCCESS: 'success', RETRY: 'retry', DROP: 'drop' };

function statusOutcome(status: unknown): DeliveryOutcome | undefined {
  return typeof status === 'string' ? STATUS_OUTCOMES[status.toUpperCase()] : undefined;
}

export class AppDelivery {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  /** One event to `path`, as `application/cloudevents+json`. */
  async deliver(path: string, body: string, headers: Record<string, string>): Promise<DeliveryResult> {
    const res = await this.#post(path, body, { ...headers, 'content-type': CLOUDEVENT_CONTENT_TYPE });
    if ('error' in res) return { outcome: 'retry', detail: res.error };
    if (res.status === 404) return { outcome: 'drop', detail: `the app answered 404 for ${path}` };
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

  /**
   * A bulk delivery (`application/json`, `{entries, …}`); the outcome of each entry by id. Entries the app's answer
   * does not mention are retried; a failed request retries them all (404 drops them all).
   */
  async deliverBulk(path: string, body: string, entryIds: readonly string[]): Promise<Map<string, DeliveryResult>> {
    const all = (result: DeliveryResult) => new Map(entryIds.map((id) => [id, result]));
    const res = await this.#post(path, body, { 'content-type': 'application/json' });
    if ('error' in res) return all({ outcome: 'retry', detail: res.error });
    if (res.status === 404) return all({ outcome: 'drop', detail: `the app answered 404 for ${path}` });
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

  async #post(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string } | { error: string }> {
    try {
      const res = await appRequest(`${this.baseUrl}${path}`, { method: 'POST', body, headers, timeoutMs: this.timeoutMs });
      return { status: res.status, text: res.body.toString('utf8') };
    } catch (err) {
      const e = ensureError(err);
      return { error: e instanceof AppTimeoutError ? e.message : `cannot reach the app: ${e.message}` };
    }
  }
}
