import * as grpc from '@grpc/grpc-js';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { ensureError, isRuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { carriedStatus } from './carried-error.js';
import type { InternalServices } from './internal-server.js';
import { decodeHead, encodeHead, STREAM_TRAILER_METADATA, streamServiceDefinition } from './stream-service.js';

/** One streaming call as its handler sees it. */
export interface StreamCall {
  readonly head: unknown;
  /** The request body; read it or leave it: the call's answer does not wait for it. */
  readonly body: Readable;
  readonly metadata: grpc.Metadata;
  /** Aborted when the caller cancels or goes away. */
  readonly signal: AbortSignal;
}

export interface StreamAnswer {
  readonly head: unknown;
  /** Sent after the head, one message per chunk; none: the answer is the head alone. */
  readonly body?: Readable;
  /** Asked for once the body is sent, and sent with the OK status. */
  readonly trailer?: () => Promise<unknown>;
}

export type StreamHandler = (call: StreamCall) => Promise<StreamAnswer>;

type Messages = AsyncIterator<Buffer>;

/** The messages after the head, one chunk each, pulled one message per read so gRPC's flow control holds. */
function bodyOf(messages: Messages): Readable {
  return new Readable({
    objectMode: true,
    read() {
      messages.next().then(
        (r) => this.push(r.done ? null : r.value),
        (err: unknown) => this.destroy(ensureError(err)),
      );
    },
  });
}

/** Writes the answer with back-pressure; a body that fails ends the call with an error status. */
async function send(call: grpc.ServerDuplexStream<Buffer, Buffer>, answer: StreamAnswer, signal: AbortSignal): Promise<void> {
  call.write(encodeHead(answer.head));
  if (answer.body) {
    signal.addEventListener('abort', () => answer.body?.destroy(), { once: true });
    for await (const chunk of answer.body) {
      if (!call.write(chunk as Buffer)) await once(call, 'drain', { signal });
    }
  }
  if (!answer.trailer) return void call.end();
  const trailer = new grpc.Metadata();
  trailer.set(STREAM_TRAILER_METADATA, encodeHead(await answer.trailer()));
  call.end(trailer);
}

/**
 * Adds streaming methods (`svc.internal.v1.Stream/<method>`, stream-service.ts) to the internal port. A handler's
 * RuntimeError goes back whole; anything else is INTERNAL and logged.
 */
export function addStreamService(server: InternalServices, handlers: Readonly<Record<string, StreamHandler>>, log: Logger): void {
  const serve = (method: string, handler: StreamHandler) => (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
    const abort = new AbortController();
    call.on('cancelled', () => abort.abort(new Error('the calling sidecar cancelled the call')));
    // Not the default iterator: it destroys the call when the other side's messages end, and with it our half.
    const messages = call.iterator({ destroyOnReturn: false }) as Messages;
    void (async () => {
      try {
        const first = await messages.next();
        if (first.done) throw new Error('the call ended before its head');
        const answer = await handler({ head: decodeHead(first.value), body: bodyOf(messages), metadata: call.metadata, signal: abort.signal });
        await send(call, answer, abort.signal);
      } catch (err) {
        if (abort.signal.aborted) return;
        if (!isRuntimeError(err)) log.warn({ method, err: ensureError(err).message }, 'internal streaming call failed');
        call.emit('error', isRuntimeError(err) ? carriedStatus(err) : { code: grpc.status.INTERNAL, details: ensureError(err).message });
      }
    })();
  };
  const methods = Object.keys(handlers);
  server.addService(streamServiceDefinition(methods), Object.fromEntries(methods.map((m) => [m, serve(m, handlers[m]!)])));
}
