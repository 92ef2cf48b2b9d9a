import { reminderOptions, timerOptions, type ScheduleFields } from '../../actors/schedule-options.js';
import type { ActorStateOperation, ReminderOptions, TimerOptions } from '../../actors/types.js';
import { parseJsonBody } from './body.js';
import { malformedRequest } from '../../errors/catalogue.js';
import { isRecord } from '../../util/is-record.js';

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw malformedRequest(`${field} must be a string`);
  return v;
}

/** `data` is any JSON; it is kept as its JSON text and handed back as JSON. */
function jsonData(body: Record<string, unknown>): Buffer | undefined {
  return body.data === undefined || body.data === null ? undefined : Buffer.from(JSON.stringify(body.data));
}

function objectBody(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) return {};
  const body = parseJsonBody(raw);
  if (!isRecord(body)) throw malformedRequest('the request body must be a JSON object');
  return body;
}

/** The text fields of a reminder or timer body. */
function scheduleFields(body: Record<string, unknown>): ScheduleFields {
  const fields = { dueTime: optionalString(body, 'dueTime'), period: optionalString(body, 'period'), ttl: optionalString(body, 'ttl'), data: jsonData(body) };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** `{"dueTime","period","ttl","data"}` of a reminder create. */
export function decodeReminderBody(raw: Buffer, now: number): ReminderOptions {
  return reminderOptions(scheduleFields(objectBody(raw)), now);
}

/** `{"dueTime","period","ttl","data","callback"}` of a timer create. */
export function decodeTimerBody(raw: Buffer, now: number): TimerOptions {
  const body = objectBody(raw);
  const callback = optionalString(body, 'callback');
  return timerOptions({ ...scheduleFields(body), ...(callback !== undefined && { callback }) }, now);
}

/** `[{"operation":"upsert"|"delete","request":{"key","value"}}]` of an actor state transaction. */
export function decodeActorStateTransaction(raw: Buffer): ActorStateOperation[] {
  const body = parseJsonBody(raw);
  if (!Array.isArray(body)) throw malformedRequest('the actor state transaction must be a JSON array of operations');
  return body.map((op: unknown, i): ActorStateOperation => {
    if (!isRecord(op) || !isRecord(op.request)) throw malformedRequest(`operation ${i} must be {"operation","request":{"key",...}}`);
    const key = op.request.key;
    if (typeof key !== 'string' || key === '') throw malformedRequest(`operation ${i}: request.key must be a non-empty string`);
    if (op.operation === 'upsert') {
      const value = op.request.value;
      return { operation: 'upsert', key, value: Buffer.from(value === undefined ? 'null' : JSON.stringify(value)) };
    }
    if (op.operation === 'delete') return { operation: 'delete', key };
    throw malformedRequest(`operation ${i}: operation must be "upsert" or "delete", got ${JSON.stringify(op.operation)}`);
  });
}
