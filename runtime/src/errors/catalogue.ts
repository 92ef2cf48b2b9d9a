/**
 * Named errors of the catalogue whose wording is a rule of its own, so every place that raises one says it the
 * same way (clients match on the code; people and docs read the message).
 */
import { RuntimeError } from './runtime-error.js';

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
 * The invoked app has no channel svcd could hand the call to: no `--app-port`, or, for a proxied gRPC call, an app
 * that is not a gRPC one (`--app-protocol http`).
 */
export function appChannelNil(appId: string, kind: 'invocation' | 'grpc-proxy'): RuntimeError {
  return kind === 'invocation'
    ? new RuntimeError('ERR_APP_CHANNEL_NIL', `app ${appId} has no app channel (svcd runs without --app-port): it cannot be invoked`)
    : new RuntimeError('ERR_APP_CHANNEL_NIL', `app ${appId} has no gRPC app channel (svcd runs without --app-port, or with --app-protocol http): gRPC calls cannot be proxied to it`);
}
