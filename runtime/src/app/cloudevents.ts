/**
 * CloudEvents 1.0 (structured JSON mode) as the pub/sub API uses them: the envelope a publish wraps the body in,
 * and the event a subscriber receives, whatever was on the topic.
 */
import { randomUUID } from 'node:crypto';
import { RuntimeError } from '../errors/runtime-error.js';

export const CLOUDEVENT_CONTENT_TYPE = 'application/cloudevents+json';
/** The `type` of events svcd wraps, as Dapr SDK subscribers expect. */
export const PUBLISHED_EVENT_TYPE = 'com.dapr.event.sent';

export type CloudEvent = Record<string, unknown> & { id: string; specversion: string; source: string; type: string };

export interface EnvelopeContext {
  readonly appId: string;
  readonly pubsubName: string;
  readonly topic: string;
  readonly traceparent?: string;
  readonly tracestate?: string;
}

const mediaType = (contentType: string | undefined): string => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

export const isCloudEventContentType = (contentType: string | undefined): boolean => mediaType(contentType) === CLOUDEVENT_CONTENT_TYPE;

export const isJsonContentType = (contentType: string | undefined): boolean => {
  const m = mediaType(contentType);
  return m === 'application/json' || m.endsWith('+json');
};

const isTextContentType = (contentType: string | undefined): boolean => {
  const m = mediaType(contentType);
  return m.startsWith('text/') || m === 'application/xml' || m.endsWith('+xml');
};

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

function utf8OrUndefined(bytes: Buffer): string | undefined {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The `data` of an envelope around `body`: JSON as JSON, text as a string, anything else as `data_base64`. */
function dataFields(body: Buffer, contentType: string): Record<string, unknown> {
  const text = utf8OrUndefined(body);
  if (text === undefined) return { data_base64: body.toString('base64') };
  if (isJsonContentType(contentType)) {
    try {
      return { data: JSON.parse(text) as unknown };
    } catch {
      return { data: text }; // declared JSON but is not: kept as the text it is
    }
  }
  return isTextContentType(contentType) ? { data: text } : { data_base64: body.toString('base64') };
}

function envelopeFields(ctx: EnvelopeContext): Record<string, unknown> {
  return {
    topic: ctx.topic,
    pubsubname: ctx.pubsubName,
    ...(ctx.traceparent ? { traceparent: ctx.traceparent, traceid: ctx.traceparent } : {}),
    ...(ctx.tracestate ? { tracestate: ctx.tracestate } : {}),
  };
}

/** A new event around `body` (the publisher's content type, `text/plain` when none was given). */
export function wrapInCloudEvent(body: Buffer, contentType: string | undefined, ctx: EnvelopeContext, id: string = randomUUID()): CloudEvent {
  const type = contentType && contentType !== '' ? contentType : 'text/plain';
  return {
    specversion: '1.0',
    id,
    source: ctx.appId,
    type: PUBLISHED_EVENT_TYPE,
    datacontenttype: type,
    time: new Date().toISOString(),
    ...envelopeFields(ctx),
    ...dataFields(body, type),
  };
}

/** A publisher's own CloudEvent's attributes; not a JSON object: ERR_PUBSUB_CLOUD_EVENTS_SER. */
export function parseCloudEvent(body: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new RuntimeError('ERR_PUBSUB_CLOUD_EVENTS_SER', `the body is declared ${CLOUDEVENT_CONTENT_TYPE} but is not JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new RuntimeError('ERR_PUBSUB_CLOUD_EVENTS_SER', `the body is declared ${CLOUDEVENT_CONTENT_TYPE} but is not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * A publisher's own CloudEvent (`application/cloudevents+json`): kept, with the required attributes it lacks
 * filled in and `topic`/`pubsubname` set to where it is published. Not a JSON object: ERR_PUBSUB_CLOUD_EVENTS_SER.
 */
export function completeCloudEvent(body: Buffer, ctx: EnvelopeContext): CloudEvent {
  const given = parseCloudEvent(body);
  const text = (name: string, fallback: string): string => {
    const v = given[name];
    return typeof v === 'string' && v !== '' ? v : fallback;
  };
  return {
    ...given,
    specversion: text('specversion', '1.0'),
    id: text('id', randomUUID()),
    source: text('source', ctx.appId),
    type: text('type', PUBLISHED_EVENT_TYPE),
    ...envelopeFields(ctx),
  };
}

/** Sets the event's expiry (`expiration`, RFC 3339) `ttlSeconds` from now; subscribers never get it after that. */
export function withExpiry(event: CloudEvent, ttlSeconds: number, now = Date.now()): CloudEvent {
  return { ...event, expiration: new Date(now + ttlSeconds * 1000).toISOString() };
}

export function isExpired(event: CloudEvent, now = Date.now()): boolean {
  const at = typeof event.expiration === 'string' ? Date.parse(event.expiration) : NaN;
  return Number.isFinite(at) && at <= now;
}

/**
 * The event a subscriber gets for a message from the topic: the CloudEvent it carries, or (a raw message, or a
 * subscription that asked for raw payloads) a new event around its bytes.
 */
export function eventForDelivery(data: Buffer, contentType: string | undefined, raw: boolean, ctx: EnvelopeContext, id: string): CloudEvent {
  if (raw) return { ...wrapInCloudEvent(data, 'application/octet-stream', ctx, id), datacontenttype: contentType || 'application/octet-stream' };
  const text = utf8OrUndefined(data);
  if (text !== undefined && text.trimStart().startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      if (typeof parsed.specversion === 'string' && typeof parsed.id === 'string') return parsed as CloudEvent;
    } catch {
      // not JSON after all: wrapped below
    }
  }
  return wrapInCloudEvent(data, contentType && contentType !== CLOUDEVENT_CONTENT_TYPE ? contentType : 'application/json', ctx, id);
}
