/**
 * What every gRPC API call goes through: the API token (`svc-api-token` or `dapr-api-token` metadata) and the
 * mapping of failures to a gRPC status — the catalogue's status and message, and a google.rpc.ErrorInfo detail
 * whose reason is the error code (what Dapr SDKs read from `grpc-status-details-bin`).
 */
import * as grpc from '@grpc/grpc-js';
import { encodeRichStatus, STATUS_DETAILS_TRAILER } from '@svc/proto';
import { ensureError, isRuntimeError } from '../../errors/runtime-error.js';
import { API_TOKEN_NAMES, secretMatches } from '../../util/api-token.js';

export const ERROR_DOMAIN = 'svc.io';

/** True when no token is configured or the call carries it. */
export function authorized(call: { metadata: grpc.Metadata }, apiToken: string | undefined): boolean {
  if (!apiToken) return true;
  return API_TOKEN_NAMES.some((h) => call.metadata.get(h).some((v) => secretMatches(apiToken, v.toString())));
}

export const UNAUTHENTICATED: Partial<grpc.StatusObject> = { code: grpc.status.UNAUTHENTICATED, details: 'authentication failed: missing or invalid svc-api-token metadata' };

/** A failure as the status a client receives; errors without a code are INTERNAL. */
export function serviceError(err: unknown): Partial<grpc.StatusObject> {
  if (!isRuntimeError(err)) return { code: grpc.status.INTERNAL, details: ensureError(err).message };
  const metadata = new grpc.Metadata();
  const status = { code: err.grpcStatus, message: err.message, details: [{ type: 'google.rpc.ErrorInfo' as const, reason: err.code, domain: ERROR_DOMAIN, metadata: {} }] };
  metadata.set(STATUS_DETAILS_TRAILER, encodeRichStatus(status));
  return { code: err.grpcStatus, details: err.message, metadata };
}
