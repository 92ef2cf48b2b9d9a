import * as grpc from '@grpc/grpc-js';
import { decodeRichStatus, STATUS_DETAILS_TRAILER, type RichStatus } from '@svc/proto';
import { ComponentStatusError, StateEtagError } from '../contracts/state-store.js';

/** The google.rpc.Status a component attached to its error, if any (undecodable bytes count as none). */
export function richStatusOf(err: grpc.ServiceError): RichStatus | undefined {
  const raw = err.metadata.get(STATUS_DETAILS_TRAILER)[0];
  if (raw === undefined) return undefined;
  try {
    return decodeRichStatus(typeof raw === 'string' ? Buffer.from(raw, 'base64') : raw);
  } catch {
    return undefined;
  }
}

/**
 * ETag errors of the established contract: FAILED_PRECONDITION (mismatch) or INVALID_ARGUMENT (invalid) with
 * exactly one BadRequest detail holding exactly one violation of field `etag`.
 */
export function etagErrorOf(err: grpc.ServiceError, key: string): StateEtagError | undefined {
  const kind = err.code === grpc.status.FAILED_PRECONDITION ? 'mismatch' : err.code === grpc.status.INVALID_ARGUMENT ? 'invalid' : undefined;
  if (!kind) return undefined;
  const details = richStatusOf(err)?.details ?? [];
  const only = details.length === 1 ? details[0] : undefined;
  if (only?.type !== 'google.rpc.BadRequest' || only.fieldViolations.length !== 1 || only.fieldViolations[0]!.field !== 'etag') return undefined;
  const description = only.fieldViolations[0]!.description || err.details;
  return new StateEtagError(kind, key, kind === 'mismatch' ? `possible etag mismatch. error from state store: ${description}` : `invalid etag value: ${description}`);
}

/**
 * An error carrying its own HTTP status: exactly one ErrorInfo detail whose metadata has an integer `http_code`
 * (and optionally `tag`, the error code to show). Only error statuses (4xx, 5xx) pass through: a component that
 * answered 200, 204 or 304 would turn its own failure into a success, and a 1xx leaves the client waiting. Any
 * other code is a 500 that names the component.
 */
export function componentStatusErrorOf(err: grpc.ServiceError, component: string): ComponentStatusError | undefined {
  const details = richStatusOf(err)?.details ?? [];
  const only = details.length === 1 ? details[0] : undefined;
  if (only?.type !== 'google.rpc.ErrorInfo' || only.metadata.http_code === undefined) return undefined;
  const code = Number(only.metadata.http_code);
  const tag = only.metadata.tag || undefined;
  if (Number.isInteger(code) && code >= 400 && code <= 599) return new ComponentStatusError(err.details, code, tag);
  return new ComponentStatusError(`${component} failed with http_code ${only.metadata.http_code}, which is not an error status (only 4xx and 5xx pass through): ${err.details}`, 500, tag);
}
