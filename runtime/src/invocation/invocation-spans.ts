/**
 * Spans of service invocation between sidecars: the caller's sidecar makes a CLIENT span `invoke {app}` around its
 * call to the target's sidecar and sends that span's `traceparent` with the call's headers; the target's sidecar
 * continues it in a SERVER span of the same name, and the app gets the `traceparent` of its own call under it.
 */
import { contextFromHeaders, type HeaderRecord } from '../tracing/propagation.js';
import { SpanKind, type SpanSpec } from '../tracing/spans.js';
import type { AppRef } from './target.js';

/** `method`: Invoke (an HTTP-shaped call) or Proxy (a proxied gRPC call); `path` the app's method. */
function attributes(method: string, callee: AppRef, caller: AppRef, path: string) {
  return {
    'rpc.system': 'grpc',
    'rpc.service': 'svc.internal.Invocation',
    'rpc.method': method,
    'svc.invoke.callee': callee.appId,
    'svc.invoke.callee_namespace': callee.namespace,
    'svc.invoke.caller': caller.appId,
    'svc.invoke.path': path,
  };
}

export function callerSpan(method: string, self: AppRef, callee: AppRef, path: string): SpanSpec {
  return { name: `invoke ${callee.appId}`, kind: SpanKind.CLIENT, attributes: attributes(method, callee, self, path) };
}

/** Continues the calling sidecar's span, carried in the call's headers. */
export function calleeSpan(method: string, caller: AppRef, self: AppRef, path: string, headers: HeaderRecord): SpanSpec {
  return { name: `invoke ${self.appId}`, kind: SpanKind.SERVER, parent: contextFromHeaders(headers), attributes: attributes(method, self, caller, path) };
}
