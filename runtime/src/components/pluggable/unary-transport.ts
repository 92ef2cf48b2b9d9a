/**
 * Unary gRPC calls to a component over svcd's own HTTP/2 connection (h2-connection.ts) on its Unix socket.
 * Measured on the same component and socket (64 calls in flight): grpc-js's client spent 138 µs of CPU per call
 * and peaked at 6,500 calls/s; `node:http2` 45–59 µs and 13,000/s; a client speaking the frames itself about 5.
 * Component streams (pub/sub pulls, input bindings) stay on grpc-js.
 * The wire is gRPC over HTTP/2 as specified: a POST with `te: trailers`, one length-prefixed uncompressed message
 * each way, the status in the trailers (or in the headers of a trailers-only answer); answers and failures are
 * reported as grpc-js reports them (same codes, details and metadata), so callers cannot tell the difference.
 */
import * as grpc from '@grpc/grpc-js';
import type { IncomingHttpHeaders } from 'node:http2';
import { H2Connection, RST_CODE } from './h2-connection.js';
import { encodeHeaders, literalEncoder, type HeaderField } from './hpack.js';

/** gRPC's length prefix: a compression flag byte and a 4-byte big-endian length. */
const PREFIX_BYTES = 5;
/** grpc-timeout allows at most 8 digits; 99,999,999 ms is over a day, far past any call svcd makes. */
const MAX_TIMEOUT_MS = 99_999_999;
/**
 * A client's stream ids are the odd numbers below 2^31, so a connection carries at most ~1.07 billion calls (a
 * day at 12,000 calls/s); a connection that has carried this many takes no new calls and closes once its calls
 * have finished; the next call opens another.
 */
const STREAMS_PER_CONNECTION = 1 << 30;
const grpcTimeoutField = literalEncoder('grpc-timeout');

export interface UnaryMethod<Req, Res> {
  readonly path: string;
  readonly requestSerialize: (value: Req) => Buffer;
  readonly responseDeserialize: (bytes: Buffer) => Res;
}

export interface UnaryTransportOptions {
  readonly socketPath: string;
  /** A reply longer than this is refused as it arrives (RESOURCE_EXHAUSTED, as grpc-js's max receive length). */
  readonly maxReplyBytes: number;
  readonly maxRequestBytes: number;
  /** The component sent GOAWAY, or an established connection closed: it may be a new process, to be initialised again. */
  readonly onConnectionLost: () => void;
  /** Calls per connection before it is replaced. @default 2^30 */
  readonly streamsPerConnection?: number;
}

/** The error a grpc-js client would give for this status (`code`, `details`, `metadata`, same message). */
function serviceError(code: grpc.status, details: string, metadata = new grpc.Metadata()): grpc.ServiceError {
  return Object.assign(new Error(`${code} ${grpc.status[code]}: ${details}`), { code, details, metadata });
}

/** gRPC's mapping of an HTTP status that came without a gRPC status. */
function httpStatusError(httpStatus: number): grpc.ServiceError {
  const code =
    httpStatus === 400 ? grpc.status.INTERNAL
    : httpStatus === 401 ? grpc.status.UNAUTHENTICATED
    : httpStatus === 403 ? grpc.status.PERMISSION_DENIED
    : httpStatus === 404 ? grpc.status.UNIMPLEMENTED
    : httpStatus === 429 || httpStatus === 502 || httpStatus === 503 || httpStatus === 504 ? grpc.status.UNAVAILABLE
    : grpc.status.UNKNOWN;
  return serviceError(code, `Received HTTP status code ${httpStatus}`);
}

function decodedMessage(raw: string | string[] | undefined): string {
  const text = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A decoded header block as Node's header objects look (what grpc-js reads metadata from). */
function headerObject(fields: readonly HeaderField[]): IncomingHttpHeaders {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of fields) {
    const seen = out[name];
    out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/** The status a header block carries, if it carries one (trailers, or the headers of a trailers-only answer). */
function statusOf(headers: IncomingHttpHeaders): grpc.ServiceError | 'ok' | undefined {
  const raw = headers['grpc-status'];
  if (raw === undefined) return undefined;
  const code: number = Number(raw);
  if (code === 0) return 'ok';
  const metadata = grpc.Metadata.fromHttp2Headers(headers);
  metadata.remove('grpc-status');
  metadata.remove('grpc-message');
  return serviceError(Number.isInteger(code) && code > 0 && code <= 16 ? code : grpc.status.UNKNOWN, decodedMessage(headers['grpc-message']), metadata);
}

/** A stream the component reset, in grpc-js's words (subchannel-call.ts). */
function resetError(code: number): grpc.ServiceError {
  switch (code) {
    case RST_CODE.REFUSED_STREAM:
      return serviceError(grpc.status.UNAVAILABLE, 'Stream refused by server');
    case RST_CODE.CANCEL:
      return serviceError(grpc.status.CANCELLED, 'Call cancelled');
    case 0xb: // ENHANCE_YOUR_CALM
      return serviceError(grpc.status.RESOURCE_EXHAUSTED, 'Bandwidth exhausted or memory limit exceeded');
    case 0x2: // INTERNAL_ERROR
      return serviceError(grpc.status.INTERNAL, `Received RST_STREAM with code ${code} (Internal server error)`);
    default:
      return serviceError(grpc.status.INTERNAL, `Received RST_STREAM with code ${code}`);
  }
}

/** The one message of a unary reply, from the DATA bytes as received. */
function replyMessage(chunks: readonly Buffer[], bytes: number): Buffer | grpc.ServiceError {
  if (bytes === 0) return serviceError(grpc.status.UNIMPLEMENTED, 'No message received');
  const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes);
  if (all.length < PREFIX_BYTES || all.length < PREFIX_BYTES + all.readUInt32BE(1)) return serviceError(grpc.status.INTERNAL, 'Received a truncated message');
  if (all[0] !== 0) return serviceError(grpc.status.INTERNAL, 'Received a compressed message, but no compression was negotiated');
  const length = all.readUInt32BE(1);
  if (all.length > PREFIX_BYTES + length) return serviceError(grpc.status.UNIMPLEMENTED, 'Too many responses received');
  return all.subarray(PREFIX_BYTES);
}

/** A message with its gRPC length prefix, in one buffer (one DATA write). */
function framed(message: Buffer): Buffer {
  const out = Buffer.allocUnsafe(PREFIX_BYTES + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  message.copy(out, PREFIX_BYTES);
  return out;
}

/**
 * Unary calls to one socket. The connection is opened by the first call and again by the first call after it
 * closed (no reconnect timer: a component that is down costs one failed connect per wave of calls, each failing
 * fast with UNAVAILABLE, as grpc-js fails calls that do not wait for ready).
 */
export class UnaryTransport {
  #connection: H2Connection | undefined;
  /** Calls started on `#connection`. */
  #streams = 0;
  /**
   * Request header blocks without the timeout, made once per headers object (svcd passes one per component
   * instance) and method path: literals without indexing, so a block can be sent any number of times.
   */
  readonly #headerBlocks = new WeakMap<Readonly<Record<string, string>>, Map<string, Buffer>>();
  #closed = false;

  constructor(private readonly opts: UnaryTransportOptions) {}

  /** Starts one call; `callback` is called exactly once. `deadline` is in ms since the epoch (Infinity: none). */
  call<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, headers: Readonly<Record<string, string>>, deadline: number, callback: grpc.requestCallback<Res>): void {
    let message: Buffer;
    try {
      message = method.requestSerialize(request);
    } catch (err) {
      return callback(serviceError(grpc.status.INTERNAL, `Request message serialization failure: ${(err as Error).message}`));
    }
    if (message.length > this.opts.maxRequestBytes) {
      return callback(serviceError(grpc.status.RESOURCE_EXHAUSTED, `Sent message larger than max (${message.length} vs. ${this.opts.maxRequestBytes})`));
    }
    const timeoutMs = Math.ceil(deadline - Date.now());
    if (timeoutMs <= 0) return callback(serviceError(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded'));
    if (this.#closed) return callback(serviceError(grpc.status.UNAVAILABLE, 'Channel closed'));

    const exchange = new Exchange(method.responseDeserialize, this.opts.maxReplyBytes, callback);
    const connection = this.#connectionForCall();
    const id = connection.open(this.#headerBlock(method.path, headers, timeoutMs), framed(message), exchange);
    if (id === undefined) return exchange.fail(serviceError(grpc.status.UNAVAILABLE, 'Connection closing'));
    exchange.started(connection, id, timeoutMs);
    if (++this.#streams >= (this.opts.streamsPerConnection ?? STREAMS_PER_CONNECTION)) this.#retire(connection);
  }

  /** Closes the connection; calls in flight fail with UNAVAILABLE, later calls at once. */
  close(): void {
    this.#closed = true;
    this.#connection?.destroy('Channel closed');
    this.#connection = undefined;
  }

  #headerBlock(path: string, headers: Readonly<Record<string, string>>, timeoutMs: number): Buffer {
    let byPath = this.#headerBlocks.get(headers);
    if (!byPath) this.#headerBlocks.set(headers, (byPath = new Map<string, Buffer>()));
    let fixed = byPath.get(path);
    if (!fixed) {
      fixed = encodeHeaders([[':method', 'POST'], [':scheme', 'http'], [':path', path], [':authority', 'localhost'], ['content-type', 'application/grpc'], ['te', 'trailers'], ...Object.entries(headers)]);
      byPath.set(path, fixed);
    }
    return timeoutMs > MAX_TIMEOUT_MS ? fixed : Buffer.concat([fixed, grpcTimeoutField(`${timeoutMs}m`)]);
  }

  #connectionForCall(): H2Connection {
    const current = this.#connection;
    if (current?.usable) return current;
    const connection = new H2Connection(this.opts.socketPath, {
      onLost: () => {
        if (this.#connection === connection) this.#connection = undefined;
        if (!this.#closed) this.opts.onConnectionLost();
      },
      onClose: () => {
        if (this.#connection === connection) this.#connection = undefined;
      },
    });
    this.#connection = connection;
    this.#streams = 0;
    return connection;
  }

  /** No new calls on `connection`; it closes once the calls on it have finished. */
  #retire(connection: H2Connection): void {
    if (this.#connection === connection) this.#connection = undefined;
    connection.retire();
  }
}

/** One call's reply as it arrives: headers, the message (its size checked from its prefix), trailers. */
class Exchange<Res> {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;
  #httpStatus: number | undefined;
  #done = false;
  #timer: NodeJS.Timeout | undefined;
  #connection: H2Connection | undefined;
  #id = 0;

  constructor(
    private readonly deserialize: (bytes: Buffer) => Res,
    private readonly maxReplyBytes: number,
    private readonly callback: grpc.requestCallback<Res>,
  ) {}

  started(connection: H2Connection, id: number, timeoutMs: number): void {
    this.#connection = connection;
    this.#id = id;
    if (!this.#done) this.#timer = setTimeout(() => this.#abandon(serviceError(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded')), timeoutMs);
  }

  onHeaders(fields: HeaderField[], endStream: boolean): void {
    const headers = headerObject(fields);
    if (this.#httpStatus === undefined) this.#httpStatus = Number(headers[':status']);
    const status = statusOf(headers);
    if (status === 'ok') return endStream ? this.#finishOk() : undefined;
    if (status) return endStream ? this.fail(status) : this.#abandon(status);
    if (endStream) this.fail(this.#endedWithoutStatus());
  }

  onData(chunk: Buffer, endStream: boolean): void {
    if (this.#done) return;
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    // The length prefix is checked as soon as it is here, so an oversized reply is refused, not buffered.
    const first = this.#chunks[0]!;
    const prefix = first.length >= PREFIX_BYTES || this.#chunks.length === 1 ? first : Buffer.concat(this.#chunks);
    const length = prefix.length >= PREFIX_BYTES ? prefix.readUInt32BE(1) : 0;
    if (length > this.maxReplyBytes || this.#bytes > PREFIX_BYTES + this.maxReplyBytes) {
      return this.#abandon(serviceError(grpc.status.RESOURCE_EXHAUSTED, `Received message larger than max (${Math.max(length, this.#bytes - PREFIX_BYTES)} vs. ${this.maxReplyBytes})`));
    }
    if (endStream) this.fail(this.#endedWithoutStatus());
  }

  onReset(code: number): void {
    this.fail(code === RST_CODE.NO_ERROR ? this.#endedWithoutStatus() : resetError(code));
  }

  onClosed(reason: string): void {
    this.fail(serviceError(grpc.status.UNAVAILABLE, reason));
  }

  fail(err: grpc.ServiceError): void {
    this.#settle(err);
  }

  /** The stream ended with no gRPC status: the HTTP status says why if it is not 200 (grpc-js's words). */
  #endedWithoutStatus(): grpc.ServiceError {
    if (this.#httpStatus !== undefined && this.#httpStatus !== 200) return httpStatusError(this.#httpStatus);
    return serviceError(grpc.status.INTERNAL, 'Received RST_STREAM with code 0 (Call ended without gRPC status)');
  }

  #finishOk(): void {
    const reply = replyMessage(this.#chunks, this.#bytes);
    if (reply instanceof Error) return this.#settle(reply);
    let value: Res;
    try {
      value = this.deserialize(reply);
    } catch (err) {
      return this.#settle(serviceError(grpc.status.INTERNAL, `Response message parsing error: ${(err as Error).message}`));
    }
    this.#settle(null, value);
  }

  /** The callback, exactly once. */
  #settle(err: grpc.ServiceError | null, value?: Res): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#timer);
    if (err) this.callback(err);
    else this.callback(null, value);
  }

  /** Ends the call with `err` now, telling the component to stop (its reply, if any, is no longer wanted). */
  #abandon(err: grpc.ServiceError): void {
    this.#connection?.cancel(this.#id);
    this.fail(err);
  }
}
