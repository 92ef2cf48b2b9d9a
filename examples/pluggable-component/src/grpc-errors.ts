/** Errors in the shape svcd (and daprd) map to HTTP: rich gRPC status details in `grpc-status-details-bin`. */
import * as grpc from '@grpc/grpc-js';
import { encodeRichStatus, STATUS_DETAILS_TRAILER, type StatusDetail } from '@svc/proto';

/** An error a handler throws; grpc-js sends its code, details and metadata (as trailers) to the caller. */
export class GrpcError extends Error implements Partial<grpc.ServiceError> {
  constructor(
    readonly code: grpc.status,
    readonly details: string,
    readonly metadata = new grpc.Metadata(),
  ) {
    super(details);
  }
}

function richError(code: grpc.status, message: string, detail: StatusDetail): GrpcError {
  const metadata = new grpc.Metadata();
  metadata.set(STATUS_DETAILS_TRAILER, encodeRichStatus({ code, message, details: [detail] }));
  return new GrpcError(code, message, metadata);
}

/** ETag mismatch → FAILED_PRECONDITION, malformed ETag → INVALID_ARGUMENT; one BadRequest on field `etag`. */
export function etagError(kind: 'mismatch' | 'invalid', message: string): GrpcError {
  const code = kind === 'mismatch' ? grpc.status.FAILED_PRECONDITION : grpc.status.INVALID_ARGUMENT;
  return richError(code, message, { type: 'google.rpc.BadRequest', fieldViolations: [{ field: 'etag', description: message }] });
}

/** An error with its own HTTP status: one ErrorInfo whose metadata carries `http_code` and `tag`. */
export function httpError(code: grpc.status, httpCode: number, tag: string, message: string): GrpcError {
  return richError(code, message, {
    type: 'google.rpc.ErrorInfo',
    reason: tag,
    domain: 'example.svc.io',
    metadata: { kit_error: 'true', http_code: String(httpCode), tag },
  });
}

export function plainError(code: grpc.status, message: string): GrpcError {
  return new GrpcError(code, message);
}
