/**
 * A SERVER span for every HTTP API request but the health probes, as OpenTelemetry's HTTP conventions name it
 * (`{method} {route}`, the route pattern once a route took the request), continuing the caller's `traceparent`.
 * Wraps the whole API handler: the fast path, service invocation and koa alike. With tracing off the handler is
 * called as it is.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracingEnabled } from '../../tracing/enabled.js';
import { contextFromHeaders } from '../../tracing/propagation.js';
import { SpanKind, startSpan } from '../../tracing/spans.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const HEALTH_PREFIX = '/v1.0/healthz';

export function tracedHttpApi(handle: Handler): Handler {
  return (req, res) => {
    const url = req.url ?? '/';
    if (!tracingEnabled() || url.startsWith(HEALTH_PREFIX)) return handle(req, res);
    const method = req.method ?? 'GET';
    const q = url.indexOf('?');
    const { span, context: ctx } = startSpan({
      name: method,
      kind: SpanKind.SERVER,
      parent: contextFromHeaders(req.headers),
      attributes: {
        'http.request.method': method,
        'url.path': q < 0 ? url : url.slice(0, q),
        'url.scheme': 'http',
        'server.port': req.socket.localPort ?? 0,
        'network.protocol.version': req.httpVersion,
        ...(req.socket.remoteAddress ? { 'client.address': req.socket.remoteAddress } : {}),
        ...(req.headers['user-agent'] ? { 'user_agent.original': req.headers['user-agent'] } : {}),
      },
    });
    // Ended a turn after the answer closed: a streamed answer (service invocation) tells its route only once it
    // closed, in the promise callbacks that run before then.
    res.once('close', () =>
      setImmediate(() => {
        span.setAttribute('http.response.status_code', res.statusCode);
        // A server span fails only on 5xx: a 4xx is the client's mistake (the error.type attribute still names it).
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }),
    );
    context.with(ctx, () => handle(req, res));
  };
}

/** Names the request's server span after the route that took it (called with the metrics' route pattern). */
export function routeServerSpan(method: string, route: string): void {
  if (!tracingEnabled() || route === 'unmatched') return;
  const span = trace.getActiveSpan();
  if (!span) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
}

/** The error code of a failed request on its span (the answer's `errorCode`). */
export function errorOnServerSpan(code: string): void {
  if (tracingEnabled()) trace.getActiveSpan()?.setAttribute('error.type', code);
}
