/**
 * gRPC proxying, as Dapr apps use it: a call on svcd's gRPC port to a method svcd does not serve, with `dapr-app-id`
 * (or `svc-app-id`) metadata, goes to that app's gRPC server through its sidecar, messages as raw bytes. Methods svcd
 * serves are svcd's whatever the metadata says (the reference system proxies only unknown methods too). The app's
 * response metadata, messages, status and trailers come back as the app sent them; svcd's own failures before the
 * app answered are the catalogue's status, with its error code.
 */
import * as grpc from '@grpc/grpc-js';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import type { InvocationApi } from '../../invocation/invocation-api.js';
import { metadataOfRecord, recordOfMetadata } from '../../util/grpc-metadata.js';
import { context } from '@opentelemetry/api';
import { authorized, serviceError, UNAUTHENTICATED } from './call-guard.js';
import { rpcServerSpan } from './server-spans.js';

/** Where the caller names the target app, read in this order. */
const APP_ID_METADATA = ['dapr-app-id', 'svc-app-id'] as const;

type ProxiedCall = grpc.ServerDuplexStream<Buffer, Buffer>;

/** The handler for every method no service on the gRPC port serves (GrpcApiServer.serveUnknownMethods). */
export function grpcProxy(api: InvocationApi, apiToken: string | undefined): grpc.handleBidiStreamingCall<Buffer, Buffer> {
  return (call) => {
    if (!authorized(call, apiToken)) return void call.emit('error', UNAUTHENTICATED);
    const target = APP_ID_METADATA.map((name) => call.metadata.get(name)[0]?.toString()).find((id) => id);
    if (!target) {
      const details = `svcd does not serve the method ${call.getPath()}, and the call names no app to proxy it to (dapr-app-id metadata)`;
      return void call.emit('error', { code: grpc.status.UNIMPLEMENTED, details });
    }
    // A SERVER span for the proxied call when svcd traces: the call to the target's sidecar continues it.
    const span = rpcServerSpan(call);
    if (!span) return void proxy(api, target, call);
    void context.with(span.context, () => proxy(api, target, call)).then((code) => span.end(code));
  };
}

/** Resolves with the status the caller got. */
async function proxy(api: InvocationApi, target: string, call: ProxiedCall): Promise<grpc.status> {
  const abort = new AbortController();
  call.on('cancelled', () => abort.abort(new Error('the caller cancelled the call')));
  try {
    const timeoutMs = remainingMs(call.getDeadline());
    const request = { path: call.getPath(), headers: recordOfMetadata(call.metadata), messages: requestMessages(call), ...(timeoutMs === undefined ? {} : { timeoutMs }) };
    const answer = await api.proxy(target, request, abort.signal);
    if (answer.headers) call.sendMetadata(metadataOfRecord(answer.headers));
    abort.signal.addEventListener('abort', () => answer.messages.destroy(), { once: true });
    for await (const message of answer.messages) {
      if (!call.write(message as Buffer)) await once(call, 'drain', { signal: abort.signal });
    }
    const status = await answer.status;
    const trailers = metadataOfRecord(status.trailers);
    if (status.code === grpc.status.OK) call.end(trailers);
    else call.emit('error', { code: status.code, details: status.details, metadata: trailers });
    return status.code;
  } catch (err) {
    if (abort.signal.aborted) return grpc.status.CANCELLED;
    const failure = serviceError(err);
    call.emit('error', failure);
    return failure.code ?? grpc.status.UNKNOWN;
  }
}

/**
 * The caller's messages, one chunk each. Not the call itself: a stream that fails destroys what it was piped from,
 * and the call must live on to carry the failure's status back.
 */
function requestMessages(call: ProxiedCall): Readable {
  return Readable.from(call.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>);
}

function remainingMs(deadline: grpc.Deadline): number | undefined {
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}
