/**
 * JSON ↔ google.protobuf.Value bytes. A job scheduled over HTTP carries JSON data, which the reference system keeps as
 * an Any of type google.protobuf.Value: gRPC clients read it back as that Any, HTTP apps receive it as JSON again.
 */
import protobuf from 'protobufjs';

export const JSON_VALUE_TYPE_URL = 'type.googleapis.com/google.protobuf.Value';

type ValueObject =
  | { nullValue: 0 }
  | { numberValue: number }
  | { stringValue: string }
  | { boolValue: boolean }
  | { structValue: { fields: Record<string, ValueObject> } }
  | { listValue: { values: ValueObject[] } };

let valueType: protobuf.Type | undefined;
function type(): protobuf.Type {
  valueType ??= protobuf.Root.fromJSON(protobuf.common.get('google/protobuf/struct.proto')!).lookupType('google.protobuf.Value');
  return valueType;
}

function toValue(json: unknown): ValueObject {
  if (json === null || json === undefined) return { nullValue: 0 };
  if (typeof json === 'number') return { numberValue: json };
  if (typeof json === 'string') return { stringValue: json };
  if (typeof json === 'boolean') return { boolValue: json };
  if (Array.isArray(json)) return { listValue: { values: json.map(toValue) } };
  if (typeof json === 'object') return { structValue: { fields: Object.fromEntries(Object.entries(json).map(([k, v]) => [k, toValue(v)])) } };
  throw new TypeError(`${typeof json} is not JSON`);
}

function fromValue(v: Record<string, unknown>): unknown {
  if ('numberValue' in v) return v.numberValue;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('structValue' in v) {
    const fields = (v.structValue as { fields?: Record<string, Record<string, unknown>> }).fields ?? {};
    return Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, fromValue(f)]));
  }
  if ('listValue' in v) return ((v.listValue as { values?: Record<string, unknown>[] }).values ?? []).map(fromValue);
  return null;
}

/** The google.protobuf.Value encoding of a parsed JSON value. */
export function encodeJsonValue(json: unknown): Buffer {
  const t = type();
  return Buffer.from(t.encode(t.fromObject(toValue(json))).finish());
}

/** The JSON value that google.protobuf.Value bytes hold; throws on bytes that are not one. */
export function decodeJsonValue(bytes: Uint8Array): unknown {
  const t = type();
  return fromValue(t.toObject(t.decode(bytes), { oneofs: false }));
}
