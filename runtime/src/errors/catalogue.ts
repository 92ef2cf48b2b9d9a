/**
 * Named errors of the catalogue whose wording is a rule of its own, so every place that raises one says it the
 * same way (clients match on the code; people and docs read the message).
 */
import type { ErrorCode } from './codes.js';
import { RuntimeError, ensureError, isRuntimeError } from './runtime-error.js';

/** A request svcd cannot take as sent: 400 / INVALID_ARGUMENT. */
export function malformedRequest(message: string, cause?: unknown): RuntimeError {
  return new RuntimeError('ERR_MALFORMED_REQUEST', message, cause === undefined ? {} : { cause });
}

/** No workflow instance has this ID (the reference system's wording, which its SDKs and users know). */
export function workflowNotFound(instanceId: string): RuntimeError {
  return new RuntimeError('ERR_INSTANCE_ID_NOT_FOUND', `unable to find workflow with the provided instance ID: ${instanceId}`);
}

/** A request without the API token svcd asks for (HTTP header or gRPC metadata `svc-api-token`/`dapr-api-token`). */
export function unauthenticatedRequest(): RuntimeError {
  return new RuntimeError('ERR_UNAUTHORIZED', 'authentication failed: missing or invalid svc-api-token header');
}

/** A Configuration resource svcd cannot use: `<source>: <field> <problem>`, as the Component parser words it. */
export function configurationInvalid(source: string, field: string, problem: string): RuntimeError {
  return new RuntimeError('ERR_CONFIGURATION_INVALID', `${source}: ${field} ${problem}`);
}

/**
 * The app has no channel svcd could hand something to: no `--app-port`; for a proxied gRPC call, an app that is not
 * a gRPC one (`--app-protocol http`); for configuration updates over HTTP, one that is not an HTTP one.
 */
export function appChannelNil(appId: string, kind: 'invocation' | 'grpc-proxy' | 'configuration'): RuntimeError {
  const messages = {
    invocation: `app ${appId} has no app channel (svcd runs without --app-port): it cannot be invoked`,
    'grpc-proxy': `app ${appId} has no gRPC app channel (svcd runs without --app-port, or with --app-protocol http): gRPC calls cannot be proxied to it`,
    configuration: `app ${appId} has no HTTP app channel (svcd runs without --app-port, or with --app-protocol grpc): configuration updates cannot be POSTed to it; subscribe over gRPC instead`,
  };
  return new RuntimeError('ERR_APP_CHANNEL_NIL', messages[kind]);
}

/**
 * A component's failure as the building block's error `code` ("<what>: <the component's reason>"); an error that
 * already carries a specific code of the catalogue keeps it.
 */
export function componentFailure(code: ErrorCode, what: string, err: unknown): RuntimeError {
  if (isRuntimeError(err) && err.code !== 'ERROR') return err;
  return new RuntimeError(code, `${what}: ${ensureError(err).message}`, { cause: err });
}
