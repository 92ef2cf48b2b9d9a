import * as grpc from '@grpc/grpc-js';
import type { ErrorCode } from '../errors/codes.js';
import { RuntimeError } from '../errors/runtime-error.js';

/** Trailing metadata carrying a RuntimeError's code, message and statuses, so the caller rebuilds the same error. */
export const CARRIED_ERROR_METADATA = 'svc-error';

/** `err` as the other sidecar rebuilds it (`fromCarried`): its code, message and statuses, in JSON. */
export function carried(err: RuntimeError): string {
  return JSON.stringify({ code: err.code, message: err.message, httpStatus: err.httpStatus, grpcStatus: err.grpcStatus });
}

export function fromCarried(text: string): RuntimeError {
  const e = JSON.parse(text) as { code: ErrorCode; message: string; httpStatus: number; grpcStatus: grpc.status };
  return new RuntimeError(e.code, e.message, { httpStatus: e.httpStatus, grpcStatus: e.grpcStatus });
}

/** The status that sends `err` whole to the calling sidecar. */
export function carriedStatus(err: RuntimeError): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  metadata.set(CARRIED_ERROR_METADATA, carried(err));
  return { code: err.grpcStatus, details: err.message, metadata };
}

/** The RuntimeError the other sidecar sent, if it sent one. */
export function carriedError(err: grpc.ServiceError): RuntimeError | undefined {
  const value = err.metadata?.get(CARRIED_ERROR_METADATA)[0];
  return value === undefined ? undefined : fromCarried(value.toString());
}

/**
 * grpc-js says UNAVAILABLE both when it never connected and when a connection dropped mid-call; only the first
 * proves nothing ran on the other side.
 */
const NEVER_CONNECTED = /No connection established|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|Name resolution failed|Server shutting down|Failed to connect/i;

export function neverConnected(err: grpc.ServiceError): boolean {
  return err.code === grpc.status.UNAVAILABLE && NEVER_CONNECTED.test(err.details);
}
