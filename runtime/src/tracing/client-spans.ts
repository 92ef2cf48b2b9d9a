/**
 * CLIENT spans for what svcd calls (the app, another sidecar), named as OpenTelemetry's HTTP and RPC conventions
 * say, with the call's own `traceparent` written into what it sends. Each helper runs the call as it is when
 * tracing is off.
 */
import type * as grpc from '@grpc/grpc-js';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { tracingEnabled } from './enabled.js';
import { injectIntoHeaders, injectIntoMetadata } from './propagation.js';
import { inSpan, SpanKind } from './spans.js';


/** Attributes an HTTP client span takes from the URL it calls. */
function urlAttributes(method: string, url: URL): Record<string, string | number> {
  return { 'http.request.method': method, 'url.full': url.href, 'server.address': url.hostname, 'server.port': Number(url.port) || 80 };
}

/**
 * An HTTP call to `url` in a CLIENT span (`{method}`): `send` gets the headers to send, with this span's
 * `traceparent`, and says the answer's status. A status of 400 or more fails the span, as the conventions say.
 * `url` is made only when the span is.
 */
export function tracedHttpCall<T, H extends Record<string, string | string[]>>(method: string, url: () => URL, headers: H, send: (headers: H) => Promise<T>, statusOf: (answer: T) => number): Promise<T> {
  if (!tracingEnabled()) return send(headers);
  return inSpan({ name: method, kind: SpanKind.CLIENT, attributes: urlAttributes(method, url()) }, async (span) => {
    const out: H = { ...headers };
    injectIntoHeaders(out);
    const answer = await send(out);
    const status = statusOf(answer);
    span.setAttribute('http.response.status_code', status);
    if (status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
    return answer;
  });
}

/** `{service}/{method}` of a gRPC client call, with `rpc.*` attributes. */
function rpcSpanSpec(path: string, server: string | undefined) {
  const slash = path.lastIndexOf('/');
  return {
    name: path,
    kind: SpanKind.CLIENT,
    attributes: { 'rpc.system': 'grpc', 'rpc.service': path.slice(0, slash), 'rpc.method': path.slice(slash + 1), ...(server ? { 'server.address': server } : {}) },
  };
}

/** A unary gRPC call in a CLIENT span; `send` gets the metadata to send, with this span's `traceparent`. */
export function tracedGrpcCall<T>(path: string, server: string | undefined, metadata: grpc.Metadata, send: (metadata: grpc.Metadata) => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return send(metadata);
  return inSpan(rpcSpanSpec(path, server), async (span: Span) => {
    injectIntoMetadata(metadata);
    try {
      const answer = await send(metadata);
      span.setAttribute('rpc.grpc.status_code', 0);
      return answer;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'number') span.setAttribute('rpc.grpc.status_code', code);
      throw err;
    }
  });
}
