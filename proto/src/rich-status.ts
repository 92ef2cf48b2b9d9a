/**
 * Rich gRPC errors: the `grpc-status-details-bin` trailer carries a serialized google.rpc.Status whose details
 * are Any-wrapped google.rpc messages. Pluggable components signal ETag and custom HTTP errors this way.
 */
import protobuf from 'protobufjs';
import path from 'node:path';
import { PROTO_ROOT } from './proto-root.js';

export const STATUS_DETAILS_TRAILER = 'grpc-status-details-bin';
const TYPE_URL_PREFIX = 'type.googleapis.com/';

export interface FieldViolation {
  field: string;
  description: string;
}

export type StatusDetail =
  | { type: 'google.rpc.BadRequest'; fieldViolations: FieldViolation[] }
  | { type: 'google.rpc.ErrorInfo'; reason: string; domain: string; metadata: Record<string, string> }
  /** A detail this module does not decode; kept so callers can count details exactly. */
  | { type: 'unknown'; typeUrl: string };

export interface RichStatus {
  code: number;
  message: string;
  details: StatusDetail[];
}

let root: protobuf.Root | undefined;
function types(): { status: protobuf.Type; badRequest: protobuf.Type; errorInfo: protobuf.Type } {
  root ??= protobuf.loadSync(['status', 'error_details'].map((f) => path.join(PROTO_ROOT, 'google', 'rpc', `${f}.proto`)));
  return {
    status: root.lookupType('google.rpc.Status'),
    badRequest: root.lookupType('google.rpc.BadRequest'),
    errorInfo: root.lookupType('google.rpc.ErrorInfo'),
  };
}

export function encodeRichStatus(status: RichStatus): Buffer {
  const t = types();
  const details = status.details.map((d) => {
    if (d.type === 'google.rpc.BadRequest') {
      return { type_url: TYPE_URL_PREFIX + d.type, value: t.badRequest.encode(t.badRequest.fromObject({ fieldViolations: d.fieldViolations })).finish() };
    }
    if (d.type === 'google.rpc.ErrorInfo') {
      return { type_url: TYPE_URL_PREFIX + d.type, value: t.errorInfo.encode(t.errorInfo.fromObject({ reason: d.reason, domain: d.domain, metadata: d.metadata })).finish() };
    }
    throw new Error(`cannot encode an unknown status detail ${d.typeUrl}`);
  });
  const msg = t.status.fromObject({ code: status.code, message: status.message, details });
  return Buffer.from(t.status.encode(msg).finish());
}

/** Throws on bytes that are not a google.rpc.Status. */
export function decodeRichStatus(bytes: Uint8Array): RichStatus {
  const t = types();
  const status = t.status.toObject(t.status.decode(bytes), { defaults: true }) as {
    code: number;
    message: string;
    // google.protobuf.Any comes from protobufjs' built-in JSON definitions, which keep the snake_case name.
    details: { type_url: string; value: Uint8Array }[];
  };
  const details = status.details.map((any): StatusDetail => {
    const name = any.type_url.slice(any.type_url.lastIndexOf('/') + 1);
    if (name === 'google.rpc.BadRequest') {
      const br = t.badRequest.toObject(t.badRequest.decode(any.value), { defaults: true }) as { fieldViolations: FieldViolation[] };
      return { type: name, fieldViolations: br.fieldViolations.map((v) => ({ field: v.field, description: v.description })) };
    }
    if (name === 'google.rpc.ErrorInfo') {
      const ei = t.errorInfo.toObject(t.errorInfo.decode(any.value), { defaults: true }) as { reason: string; domain: string; metadata: Record<string, string> };
      return { type: name, reason: ei.reason, domain: ei.domain, metadata: { ...ei.metadata } };
    }
    return { type: 'unknown', typeUrl: any.type_url };
  });
  return { code: status.code, message: status.message, details };
}
