import * as grpc from '@grpc/grpc-js';
import { Readable } from 'node:stream';
import { ensureError, RuntimeError } from '../errors/runtime-error.js';
import { carriedError, neverConnected } from './carried-error.js';
import { DEFAULT_PEER_MESSAGE_BYTES } from './peer-service.js';
import { decodeHead, encodeHead, STREAM_TRAILER_METADATA, streamMethodPath } from './stream-service.js';

/** The other sidecar could not be reached: nothing ran there, so the call may be tried elsewhere. */
export class StreamUnreachableError extends RuntimeError {
  constructor(address: string, detail: string) {
    super('ERR_DIRECT_INVOKE_UNREACHABLE', `sidecar ${address} is unreachable: ${detail}`);
  }
}

export interface StreamCallOptions {
  readonly metadata: Readonly<Record<string, string>>;
  /** How long to wait for a connection to a sidecar not connected yet. */
  readonly connectTimeoutMs: number;
  readonly signal?: AbortSignal;
}

export interface StreamReply {
  readonly head: unknown;
  /** One chunk per message. */
  readonly body: Readable;
  /** The answer's trailer (undefined: none) once the call ended OK; rejects with the body's error otherwise. */
  readonly trailer: Promise<unknown>;
}

const identity = (b: Buffer) => b;

/**
 * Streaming calls to other sidecars' internal ports (stream-service.ts): one channel per address, every call a
 * stream on it. A call waits for its channel to connect before it sends anything, so a sidecar that cannot be
 * reached fails with StreamUnreachableError with the request body still unread: the caller may try another one.
 */
export class StreamClients {
  readonly #clients = new Map<string, grpc.Client>();
  readonly #options: grpc.ChannelOptions = {
    'grpc.max_receive_message_length': DEFAULT_PEER_MESSAGE_BYTES,
    'grpc.max_send_message_length': DEFAULT_PEER_MESSAGE_BYTES,
    'grpc.keepalive_time_ms': 10_000,
    'grpc.keepalive_timeout_ms': 5_000,
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 1_000,
    'grpc.enable_channelz': 0,
  };

  async call(address: string, method: string, head: unknown, body: Readable | undefined, o: StreamCallOptions): Promise<StreamReply> {
    const client = this.#client(address);
    await connected(client, address, o.connectTimeoutMs);
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(o.metadata)) metadata.set(k, v);
    const call = client.makeBidiStreamRequest<Buffer, Buffer>(streamMethodPath(method), identity, identity, metadata, {});
    const cancel = () => call.cancel();
    o.signal?.addEventListener('abort', cancel, { once: true });
    call.on('status', () => o.signal?.removeEventListener('abort', cancel));
    const failed = new Promise<never>((_, reject) => call.once('error', (err: grpc.ServiceError) => reject(toError(address, err, o.signal))));
    failed.catch(() => undefined);
    const ended = new Promise<unknown>((resolve) =>
      call.once('status', (s: grpc.StatusObject) => {
        if (s.code === grpc.status.OK) resolve(trailerOf(s.metadata));
      }),
    );
    // A failed status is emitted as an error first: `failed` settles the race.
    const trailer = Promise.race([failed, ended]);
    trailer.catch(() => undefined);
    call.write(encodeHead(head));
    if (body) {
      // Not stream.pipeline: see util/pipe-into.ts. A body that fails cancels the call (the other side sees it cut).
      body.once('error', () => call.cancel());
      body.pipe(call as unknown as NodeJS.WritableStream);
    }
    else call.end();
    // Not the default iterator: it destroys the call when the other side's messages end, and with it our half.
    const messages = call.iterator({ destroyOnReturn: false }) as AsyncIterator<Buffer>;
    const first = await Promise.race([messages.next(), failed]);
    if (first.done) throw new RuntimeError('ERR_DIRECT_INVOKE', `sidecar ${address} ended the call without an answer`);
    return { head: decodeHead(first.value), body: replyBody(messages, () => call.cancel(), address, o.signal), trailer };
  }

  /** Closes the channel to a sidecar that went away. */
  forget(address: string): void {
    this.#clients.get(address)?.close();
    this.#clients.delete(address);
  }

  close(): void {
    for (const c of this.#clients.values()) c.close();
    this.#clients.clear();
  }

  #client(address: string): grpc.Client {
    let client = this.#clients.get(address);
    if (!client) {
      client = new grpc.Client(address, grpc.credentials.createInsecure(), this.#options);
      this.#clients.set(address, client);
    }
    return client;
  }
}

function connected(client: grpc.Client, address: string, timeoutMs: number): Promise<void> {
  if (client.getChannel().getConnectivityState(true) === grpc.connectivityState.READY) return Promise.resolve();
  return new Promise((resolve, reject) => {
    client.waitForReady(Date.now() + timeoutMs, (err) => (err ? reject(new StreamUnreachableError(address, err.message)) : resolve()));
  });
}

function trailerOf(metadata: grpc.Metadata): unknown {
  const value = metadata.get(STREAM_TRAILER_METADATA)[0];
  return value === undefined ? undefined : decodeHead(value as Buffer);
}

/**
 * The answer's body: the messages after its head, one chunk each, pulled one per read. A failed call destroys it
 * with its error; destroying it (the reader went away) cancels the call.
 */
function replyBody(messages: AsyncIterator<Buffer>, cancel: () => void, address: string, signal: AbortSignal | undefined): Readable {
  let ended = false;
  return new Readable({
    objectMode: true,
    destroy(err, callback) {
      if (!ended) cancel();
      callback(err);
    },
    read() {
      messages.next().then(
        (r) => {
          ended ||= r.done === true;
          this.push(r.done ? null : r.value);
        },
        (err: unknown) => {
          ended = true;
          this.destroy(toError(address, err as grpc.ServiceError, signal));
        },
      );
    },
  });
}

function toError(address: string, err: grpc.ServiceError, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return signal.reason instanceof Error ? signal.reason : new Error('the call was cancelled');
  if (typeof err.code !== 'number') return ensureError(err);
  const carried = carriedError(err);
  if (carried) return carried;
  if (neverConnected(err)) return new StreamUnreachableError(address, err.details);
  return new RuntimeError('ERR_DIRECT_INVOKE', `the call to sidecar ${address} failed: ${err.details || err.message}`);
}
