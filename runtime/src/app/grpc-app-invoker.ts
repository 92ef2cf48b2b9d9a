import * as grpc from '@grpc/grpc-js';
import { loadAppCallbackProto, type AppCallbackClient } from '@svc/proto';
import type { InvokeRequest } from '@svc/proto/gen/svc/proto/common/v1/InvokeRequest.js';
import type { InvokeResponse__Output } from '@svc/proto/gen/svc/proto/common/v1/InvokeResponse.js';
import { Readable } from 'node:stream';
import { RuntimeError } from '../errors/runtime-error.js';
import { tracedGrpcCall } from '../tracing/client-spans.js';
import { readAtMost } from '../util/read-at-most.js';
import { httpStatusOfGrpc } from '../util/status-mapping.js';
import type { AppAnswer, AppCall, AppInvoker, Headers } from './app-invocation.js';

const VERBS = ['NONE', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'] as const;
type Verb = (typeof VERBS)[number];

/** Headers that are HTTP's own business, not metadata for a gRPC app. */
const NOT_METADATA = new Set(['content-length', 'content-type', 'host', 'accept-encoding']);

/**
 * Invocations of a gRPC app (`--app-protocol grpc`): `AppCallback.OnInvoke`, as the Dapr SDKs' gRPC servers serve
 * it. The body is one message, so it is read whole (up to `--max-request-size`); headers go as metadata. A status
 * other than OK is answered with the HTTP status that stands for it, and its message.
 */
export class GrpcAppInvoker implements AppInvoker {
  readonly #app: AppCallbackClient;

  constructor(
    port: number,
    private readonly maxBodyBytes: number,
  ) {
    this.#app = new (loadAppCallbackProto().AppCallback)(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  }

  async invoke(call: AppCall, signal: AbortSignal): Promise<AppAnswer> {
    const data = call.body ? await readAtMost(call.body, this.maxBodyBytes) : Buffer.alloc(0);
    const contentType = headerText(call.headers['content-type']);
    const verb = (VERBS as readonly string[]).includes(call.verb) ? (call.verb as Verb) : 'POST';
    const req: InvokeRequest = { method: decodeURIComponent(call.path.replace(/^\//, '')), data: { type_url: '', value: data }, contentType, httpExtension: { verb, querystring: call.query } };
    const metadata = new grpc.Metadata();
    for (const [name, value] of Object.entries(call.headers)) {
      if (!NOT_METADATA.has(name) && !name.startsWith(':') && !name.endsWith('-bin')) metadata.set(name, headerText(value));
    }
    const send = (md: grpc.Metadata) =>
      new Promise<InvokeResponse__Output>((resolve, reject) => {
        const unary = this.#app.OnInvoke(req, md, (err, out) => (err ? reject(err) : resolve(out!)));
        signal.addEventListener('abort', () => unary.cancel(), { once: true });
      });
    // The app gets this call's own `traceparent` (in a CLIENT span) in place of the one the caller sent.
    const res = await tracedGrpcCall('dapr.proto.runtime.v1.AppCallback/OnInvoke', undefined, metadata, send).catch((err: grpc.ServiceError) => {
      throw new RuntimeError('ERR_DIRECT_INVOKE', `the app answered OnInvoke with ${grpc.status[err.code] ?? err.code}: ${err.details}`, { httpStatus: httpStatusOfGrpc(err.code), grpcStatus: err.code });
    });
    const body = res.data?.value ?? Buffer.alloc(0);
    const headers: Headers = { 'content-length': String(body.length), ...(res.contentType ? { 'content-type': res.contentType } : {}) };
    return { status: 200, headers, body: Readable.from([body]) };
  }
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}
