/**
 * A SERVER span for every unary gRPC API call, as OpenTelemetry's RPC conventions name it (`{service}/{method}`,
 * `rpc.system` grpc), continuing the `traceparent` of the call's metadata. grpc-js has no server interceptors: the
 * span is made where every unary method is wrapped (unary.ts).
 */
import type * as grpc from '@grpc/grpc-js';
import { SpanStatusCode, type Context, type Span } from '@opentelemetry/api';
import { tracingEnabled } from '../../tracing/enabled.js';
import { contextFromMetadata } from '../../tracing/propagation.js';
import { errorType, SpanKind, startSpan } from '../../tracing/spans.js';

export interface RpcSpan {
  readonly context: Context;
  /** Ends the span with the call's status code and, for a failure, the error's code. */
  end(code: grpc.status, err?: unknown): void;
}

/** Undefined with tracing off. */
export function rpcServerSpan(call: { metadata: grpc.Metadata; getPath(): string }): RpcSpan | undefined {
  if (!tracingEnabled()) return undefined;
  const path = call.getPath().replace(/^\//, '');
  const slash = path.lastIndexOf('/');
  const { span, context } = startSpan({
    name: path,
    kind: SpanKind.SERVER,
    parent: contextFromMetadata(call.metadata),
    attributes: { 'rpc.system': 'grpc', 'rpc.service': path.slice(0, slash), 'rpc.method': path.slice(slash + 1) },
  });
  return { context, end: (code, err) => endRpcSpan(span, code, err) };
}

/** Server spans fail on the codes the RPC conventions count as server errors. */
const SERVER_ERROR_CODES = new Set([2, 4, 12, 13, 14, 15]); // UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS

function endRpcSpan(span: Span, code: grpc.status, err: unknown): void {
  span.setAttribute('rpc.grpc.status_code', code);
  if (err !== undefined) span.setAttribute('error.type', errorType(err));
  if (SERVER_ERROR_CODES.has(code)) span.setStatus({ code: SpanStatusCode.ERROR, ...(err instanceof Error ? { message: err.message } : {}) });
  span.end();
}
