/**
 * A CloudEvent as the gRPC messages carry it (TopicEventRequest, a bulk entry's TopicEventCERequest): its own
 * attributes as fields, the data as bytes the receiver decodes by `data_content_type`, the other attributes in
 * `extensions`. Used by the gRPC app channel and by streaming subscriptions.
 */
import { isJsonContentType, type CloudEvent } from './cloudevents.js';

/** CloudEvent attributes with fields of their own in TopicEventRequest; the rest go to `extensions`. */
const OWN_FIELDS = new Set(['id', 'source', 'type', 'specversion', 'datacontenttype', 'data', 'data_base64', 'topic', 'pubsubname']);

/** The event's data as the bytes the app decodes by `data_content_type`. */
function dataBytes(event: CloudEvent): Buffer {
  if (typeof event.data_base64 === 'string') return Buffer.from(event.data_base64, 'base64');
  if (event.data === undefined) return Buffer.alloc(0);
  const contentType = typeof event.datacontenttype === 'string' ? event.datacontenttype : undefined;
  if (typeof event.data === 'string' && !isJsonContentType(contentType)) return Buffer.from(event.data, 'utf8');
  return Buffer.from(JSON.stringify(event.data));
}

/** google.protobuf.Struct of the event's other attributes (strings, numbers, booleans). */
function extensions(event: CloudEvent): { fields: Record<string, { stringValue: string } | { numberValue: number } | { boolValue: boolean }> } {
  const fields: Record<string, { stringValue: string } | { numberValue: number } | { boolValue: boolean }> = {};
  for (const [k, v] of Object.entries(event)) {
    if (OWN_FIELDS.has(k)) continue;
    if (typeof v === 'string') fields[k] = { stringValue: v };
    else if (typeof v === 'number') fields[k] = { numberValue: v };
    else if (typeof v === 'boolean') fields[k] = { boolValue: v };
  }
  return { fields };
}

export function ceFields(event: CloudEvent) {
  return {
    id: event.id,
    source: event.source,
    type: event.type,
    specVersion: event.specversion,
    dataContentType: typeof event.datacontenttype === 'string' ? event.datacontenttype : '',
    data: dataBytes(event),
    extensions: extensions(event),
  };
}

