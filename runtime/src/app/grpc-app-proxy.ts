/**
 * gRPC proxying's last hop: any method of the app's own gRPC server (`--app-protocol grpc`), called with its
 * messages as raw bytes, never decoded. One channel to the app serves every call.
 */
import * as grpc from '@grpc/grpc-js';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { metadataOfRecord, recordOfMetadata } from '../util/grpc-metadata.js';
import { tracingEnabled } from '../tracing/enabled.js';
import { injectIntoMetadata } from '../tracing/propagation.js';
import type { Headers } from './app-invocation.js';

export interface GrpcAppCall {
  /** `/<package>.<Service>/<Method>`. */
  readonly path: string;
  readonly headers: Headers;
  /** The request messages, one per chunk (an object-mode stream); its end is the caller's half-close. */
  readonly messages: Readable;
  /** What is left of the caller's deadline; undefined: none. */
  readonly timeoutMs?: number;
}

/** How the call ended: the app's status with its trailers. */
export interface GrpcAppStatus {
  readonly code: grpc.status;
  readonly details: string;
  readonly trailers: Headers;
}

export interface GrpcAppAnswer {
  /** The app's response metadata; undefined when it answered with trailers only (an error before any message). */
  readonly headers: Headers | undefined;
  /** The answer messages, one per chunk; they end before `status` is known to the reader. */
  readonly messages: Readable;
  /** Settles once the call ended, whatever its code; rejects only when the call between sidecars broke. */
  readonly status: Promise<GrpcAppStatus>;
}

const asIs = (bytes: Buffer): Buffer => bytes;

export class GrpcAppProxy {
  readonly #client: grpc.Client;

  constructor(port: number, maxMessageBytes: number) {
    this.#client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': maxMessageBytes,
      'grpc.max_send_message_length': maxMessageBytes,
      'grpc.enable_channelz': 0,
    });
  }

  /** Resolves once the app sent its response metadata, or ended the call without any. */
  call(call: GrpcAppCall, signal: AbortSignal): Promise<GrpcAppAnswer> {
    const options: grpc.CallOptions = call.timeoutMs === undefined ? {} : { deadline: Date.now() + call.timeoutMs };
    const metadata = metadataOfRecord(call.headers);
    // The app continues the span svcd serves the call in, not the one the call came with.
    if (tracingEnabled()) injectIntoMetadata(metadata);
    const app = this.#client.makeBidiStreamRequest<Buffer, Buffer>(call.path, asIs, asIs, metadata, options);
    const cancel = () => app.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    // A failed status is also emitted as an error: the status is the answer, so the error is not a failure here.
    app.on('error', () => undefined);
    const status = new Promise<GrpcAppStatus>((resolve) =>
      app.once('status', (s: grpc.StatusObject) => {
        signal.removeEventListener('abort', cancel);
        resolve({ code: s.code, details: s.details, trailers: recordOfMetadata(s.metadata) });
      }),
    );
    pipeline(call.messages, app as unknown as NodeJS.WritableStream).catch(cancel);
    const messages = messagesOf(app);
    return new Promise((resolve) => {
      app.once('metadata', (m: grpc.Metadata) => resolve({ headers: recordOfMetadata(m), messages, status }));
      void status.then(() => resolve({ headers: undefined, messages, status }));
    });
  }

  close(): void {
    this.#client.close();
  }
}

/**
 * The app's messages as they come, pulled one per read so gRPC's flow control holds. Not the call's default
 * iterator: it destroys the call when the app's messages end, and with it the request half still being sent.
 */
function messagesOf(app: grpc.ClientDuplexStream<Buffer, Buffer>): Readable {
  const messages = app.iterator({ destroyOnReturn: false }) as AsyncIterator<Buffer>;
  return new Readable({
    objectMode: true,
    read() {
      // The iterator throws the call's error status after the last message: the status tells how it ended.
      messages.next().then(
        (r) => this.push(r.done ? null : r.value),
        () => this.push(null),
      );
    },
  });
}
