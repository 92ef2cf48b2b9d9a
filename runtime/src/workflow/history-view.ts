/**
 * The history of an instance as the HTTP API shows it (`GET /v1.0/workflows/svc/<id>/history`): events in order,
 * times in RFC 3339, a worker's `result` shown as `output` and `failureDetails` as `failure`. Payloads longer
 * than TRIMMED_PAYLOAD_CHARS are cut in lists (a 10 MB input must not make a history page 10 MB) and marked;
 * `GET …/history/<index>` or `?payloads=full` gives them whole.
 */
import { RuntimeError } from '../errors/runtime-error.js';
import type { HistoryRange } from './engine.js';
import type { FailureDetails, HistoryEvent } from './history.js';

export const TRIMMED_PAYLOAD_CHARS = 1024;
export const DEFAULT_HISTORY_PAGE_SIZE = 500;
export const MAX_HISTORY_PAGE_SIZE = 5000;
/** A position in a history as text (a token or an event index). */
const POSITION = /^\d{1,9}$/;

export type HistoryEventView = Record<string, unknown> & { index: number; eventId: number; type: string; timestamp: string };

export interface HistoryPageView {
  instanceID: string;
  events: HistoryEventView[];
  /** Index of the first event of the next page as text; null on the last page. */
  continuationToken: string | null;
}

const TIME_FIELDS = new Set(['fireAt', 'scheduledStartTime']);
const RENAMED: Record<string, string> = { result: 'output', failureDetails: 'failure' };

/** A payload as shown: whole, or its first TRIMMED_PAYLOAD_CHARS with its full length beside it. */
function payload(view: Record<string, unknown>, field: string, value: string, whole: boolean): void {
  if (whole || value.length <= TRIMMED_PAYLOAD_CHARS) {
    view[field] = value;
    return;
  }
  view[field] = value.slice(0, TRIMMED_PAYLOAD_CHARS);
  view[`${field}Trimmed`] = true;
  view[`${field}Length`] = value.length;
}

function failureView(f: FailureDetails, whole: boolean): Record<string, unknown> {
  const view: Record<string, unknown> = { errorType: f.errorType };
  payload(view, 'errorMessage', f.errorMessage, whole);
  if (f.stackTrace !== undefined) payload(view, 'stackTrace', f.stackTrace, whole);
  if (f.isNonRetriable) view.isNonRetriable = true;
  if (f.innerFailure) view.innerFailure = failureView(f.innerFailure, whole);
  return view;
}

/** RFC 3339, to the nanosecond when the time kept its nanoseconds past the millisecond (a timer's `fireAtNanos`). */
function isoTime(ms: number, nanosPastMs: number | undefined): string {
  const iso = new Date(ms).toISOString();
  return nanosPastMs === undefined ? iso : `${iso.slice(0, -1)}${String(nanosPastMs).padStart(6, '0')}Z`;
}

export function historyEventView(e: HistoryEvent, index: number, whole: boolean): HistoryEventView {
  const view: HistoryEventView = { index, eventId: e.eventId, type: e.type, timestamp: new Date(e.timestamp).toISOString() };
  for (const [key, value] of Object.entries(e)) {
    if (key === 'eventId' || key === 'type' || key === 'timestamp' || key === 'fireAtNanos' || value === undefined) continue;
    const field = RENAMED[key] ?? key;
    if (key === 'failureDetails') view[field] = failureView(value as FailureDetails, whole);
    else if (key === 'input' || key === 'result') payload(view, field, value as string, whole);
    else if (TIME_FIELDS.has(key)) view[field] = isoTime(value as number, key === 'fireAt' && e.type === 'TimerCreated' ? e.fireAtNanos : undefined);
    else view[field] = value;
  }
  return view;
}

/** The range a page asks for: from the token's position (0 without one, or for a token that is no position). */
export function pageRange(opts: { pageSize?: number; continuationToken?: string }): { from: number; size: number } {
  const token = opts.continuationToken;
  return { from: token !== undefined && POSITION.test(token) ? Number(token) : 0, size: Math.min(MAX_HISTORY_PAGE_SIZE, opts.pageSize ?? DEFAULT_HISTORY_PAGE_SIZE) };
}

/**
 * The page from the events read for `pageRange(opts)`. `continuationToken` is the index of the first event to
 * show; a token at the history's end answers no events: where a follower (`svc workflow get --follow`) reads next.
 */
export function historyPage(instanceId: string, read: HistoryRange, opts: { continuationToken?: string; whole: boolean }): HistoryPageView {
  const { historyLength, events } = read;
  const token = opts.continuationToken;
  const from = token === undefined ? 0 : token === String(historyLength) ? historyLength : eventIndex(token, historyLength, 'continuationToken');
  const to = from + events.length;
  return { instanceID: instanceId, events: events.map((e, i) => historyEventView(e, from + i, opts.whole)), continuationToken: to < historyLength ? String(to) : null };
}

/** A position in a history of `length` events, given as text; 400 when it is not one. */
export function eventIndex(text: string, length: number, what: string): number {
  const i = POSITION.test(text) ? Number(text) : NaN;
  if (Number.isNaN(i) || i >= length) {
    throw new RuntimeError('ERR_MALFORMED_REQUEST', `${what} '${text.slice(0, 40)}' is not a position in this history (it has ${length} events)`);
  }
  return i;
}
