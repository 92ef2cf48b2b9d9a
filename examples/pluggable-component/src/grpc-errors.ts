/** Errors in the shape svcd (and daprd) map to HTTP: rich gRPC status details in `grpc-status-details-bin`. */
import * as grpc from '@grpc/grpc-js';
import { encodeRichStatus, STATUS_DETAILS_TRAILER, type StatusDetail } from '@svc/proto';

function richError(code: grpc.status, message: string, detail: StatusDetail): Partial<grpc.ServiceError> {
  const metadata = new grpc.Metadata();
  metadata.set(STATUS_DETAILS_TRAILER, encodeRichStatus({ code, message, details: [detail] }));
  return { code, details: message, metadata };
}

/** ETag mismatch → FAILED_PRECONDITION, malformed ETag → INVALID_ARGUMENT; one BadRequest on field `etag`. */
export function etagError(kind: 'mismatch' | 'invalid', message: string): Partial<grpc.ServiceError> {
  const code = kind === 'mismatch' ? grpc.status.FAILED_PRECONDITION : grpc.status.INVALID_ARGUMENT;
  return richError(code, message, { type: 'google.rpc.BadRequest', fieldViolations: [{ field: 'etag', description: message }] });
}

/** An error with its own HTTP status: one ErrorInfo whose metadata carries `http_code` and `tag`. */
export function httpError(code: grpc.status, httpCode: number, tag: string, message: string): Partial<grpc.ServiceError> {
  return richError(code, message, {
    type: 'google.rpc.ErrorInfo',
    reason: tag,
    domain: 'example.svc.io',
    metadata: { kit_error: 'true', http_code: String(httpCode), tag },
  });
}

export function plainError(code: grpc.status, message: string): Partial<grpc.ServiceError> {
  return { code, details: message };
}
