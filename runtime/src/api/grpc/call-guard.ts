/**
 * What every gRPC API call goes through: the API token (`svc-api-token` or `dapr-api-token` metadata) and the
 * mapping of failures to a gRPC status — the catalogue's status and message, and a google.rpc.ErrorInfo detail
 * whose reason is the error code (what Dapr SDKs read from `grpc-status-details-bin`).
 */
import * as grpc from '@grpc/grpc-js';
import { encodeRichStatus, STATUS_DETAILS_TRAILER } from '@svc/proto';
import { ensureError, isRuntimeError } from '../../errors/runtime-error.js';
import { API_TOKEN_NAMES, secretMatches } from '../../config/api-token.js';

export const ERROR_DOMAIN = 'svc.io';

/** True when no token is configured or the call carries it. */
export function authorized(call: { metadata: grpc.Metadata }, apiToken: string | undefined): boolean {
  if (!apiToken) return true;
  return API_TOKEN_NAMES.some((h) => call.metadata.get(h).some((v) => secretMatches(apiToken, v.toString())));
}

export const UNAUTHENTICATED: Partial<grpc.StatusObject> = { code: grpc.status.UNAUTHENTICATED, details: 'authentication failed: missing or invalid svc-api-token metadata' };

/**
 * The most of an error message a status carries, in UTF-8 bytes. The message goes out twice in the trailers
 * (`grpc-message`, percent-encoded, and inside `grpc-status-details-bin`), and messages quote what the caller sent:
 * a 70 KB store name made trailers over HTTP/2's 64 KiB header list default, which broke the client's connection
 * (that call and every later one on it hung). Clients' metadata limits are smaller still (8 KiB in gRPC C-core).
 */
export const MAX_STATUS_MESSAGE_BYTES = 1024;

/** `message` cut to MAX_STATUS_MESSAGE_BYTES (on a character boundary), saying it was cut. */
export function statusMessage(message: string): string {
  // Only the head is encoded: the message may quote a 16 MiB field.
  const head = Buffer.from(message.slice(0, MAX_STATUS_MESSAGE_BYTES + 1), 'utf8');
  if (head.length <= MAX_STATUS_MESSAGE_BYTES && message.length <= MAX_STATUS_MESSAGE_BYTES) return message;
  // A character cut in two decodes to U+FFFD: dropped.
  const kept = head.subarray(0, MAX_STATUS_MESSAGE_BYTES).toString('utf8').replace(/\uFFFD$/, '');
  return `${kept}… (${message.length} characters, cut)`;
}

/** A failure as the status a client receives; errors without a code are INTERNAL. */
export function serviceError(err: unknown): Partial<grpc.StatusObject> {
  if (!isRuntimeError(err)) return { code: grpc.status.INTERNAL, details: statusMessage(ensureError(err).message) };
  const message = statusMessage(err.message);
  const metadata = new grpc.Metadata();
  const status = { code: err.grpcStatus, message, details: [{ type: 'google.rpc.ErrorInfo' as const, reason: err.code, domain: ERROR_DOMAIN, metadata: {} }] };
  metadata.set(STATUS_DETAILS_TRAILER, encodeRichStatus(status));
  return { code: err.grpcStatus, details: message, metadata };
}
