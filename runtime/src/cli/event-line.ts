/** How the CLI shows times and one history event's interesting fields (`svc workflow history`, `get --follow`). */
import type { HistoryEventView } from '../workflow/history-view.js';

/** A time in the reader's locale. */
export const local = (iso: string): string => new Date(iso).toLocaleString();

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The interesting fields of an event on one line. */
export function eventDetails(e: HistoryEventView): string {
  const shown: string[] = [];
  for (const [k, v] of Object.entries(e)) {
    if (['index', 'eventId', 'type', 'timestamp', 'executionId'].includes(k) || k.endsWith('Trimmed') || k.endsWith('Length')) continue;
    const text = k === 'failure' ? `${str((v as Record<string, unknown>).errorType) ?? ''}: ${str((v as Record<string, unknown>).errorMessage) ?? ''}` : typeof v === 'string' ? v : JSON.stringify(v);
    shown.push(`${k}=${text}`);
  }
  return shown.join(' ');
}

/** The columns of `svc workflow history`, for one event. */
export const eventRow = (e: HistoryEventView): string[] => [String(e.index), local(e.timestamp), e.type, e.eventId >= 0 ? String(e.eventId) : '', eventDetails(e)];
