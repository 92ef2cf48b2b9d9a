/**
 * Which headers cross with an invocation. Hop-by-hop headers belong to one connection and never cross. The
 * caller's credentials for its own sidecar (API tokens) and the invocation's own routing headers stop at the
 * calling sidecar. Caller headers are written by the receiving sidecar from the authenticated identity: one the
 * caller's app wrote is dropped, never passed on.
 */
import type { Headers } from '../app/app-invocation.js';
import type { GrpcAppAnswer } from '../app/grpc-app-proxy.js';
import type { AppRef } from './target.js';

// `expect` too: the calling sidecar already answered `100-continue`; the body is on its way.
const HOP_BY_HOP = new Set(['expect', 'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'http2-settings']);
const STOP_AT_CALLER = new Set(['svc-api-token', 'dapr-api-token', 'svc-app-id', 'dapr-app-id']);
const IDENTITY_PREFIXES = ['dapr-caller-', 'svc-caller-', 'dapr-callee-', 'svc-callee-'];

function crosses(name: string, named: ReadonlySet<string>): boolean {
  return !HOP_BY_HOP.has(name) && !named.has(name) && !name.startsWith(':');
}

const NONE: ReadonlySet<string> = new Set();

/** Headers named in `Connection` are hop-by-hop too (RFC 9110 §7.6.1). */
function connectionNamed(headers: Headers): ReadonlySet<string> {
  const value = headers.connection;
  // The usual value, `keep-alive`, names a header that is hop-by-hop anyway.
  if (value === undefined || value === 'keep-alive') return NONE;
  const text = Array.isArray(value) ? value.join(',') : value;
  return new Set(text.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
}

/** The caller's request headers as they travel to the target's sidecar. */
export function forwardedRequestHeaders(headers: Headers): Headers {
  const named = connectionNamed(headers);
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!crosses(name, named) || STOP_AT_CALLER.has(name) || IDENTITY_PREFIXES.some((p) => name.startsWith(p))) continue;
    out[name] = value;
  }
  return out;
}

/** The headers the target app receives: the forwarded ones and who calls whom, as the receiving sidecar knows it. */
export function appRequestHeaders(forwarded: Headers, caller: AppRef, callee: AppRef): Headers {
  const out = forwardedRequestHeaders(forwarded);
  out['dapr-caller-app-id'] = caller.appId;
  out['dapr-caller-namespace'] = caller.namespace;
  out['dapr-callee-app-id'] = callee.appId;
  return out;
}

/** The app's answer headers as the caller receives them. */
export function forwardedAnswerHeaders(headers: Headers): Headers {
  const named = connectionNamed(headers);
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) if (crosses(name, named)) out[name] = value;
  return out;
}

/** A gRPC app's answer as the caller receives it: its metadata and its trailers are answer headers. */
export function forwardedGrpcAnswer(answer: GrpcAppAnswer): GrpcAppAnswer {
  return {
    headers: answer.headers && forwardedAnswerHeaders(answer.headers),
    messages: answer.messages,
    status: answer.status.then((s) => ({ ...s, trailers: forwardedAnswerHeaders(s.trailers) })),
  };
}
