/**
 * One HTTP/2 client connection on a Unix socket, just what unary gRPC calls need: streams opened with a header
 * block and a body, answered with header blocks and data. It speaks the frames itself instead of through
 * `node:http2`, whose per-request Duplex stream, header objects and AsyncResource cost about 45 µs of CPU a call
 * against about 5 here (docs/performance.md). Frames written in one turn of the event loop leave in one write.
 * Both directions are flow-controlled (requests of up to 256 MiB; replies of up to the reply cap, each stream's
 * window bounding what a component can push before svcd reads it).
 */
import net from 'node:net';
import { HpackDecoder, HpackError, type HeaderField } from './hpack.js';

const FRAME = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PUSH_PROMISE: 5, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 } as const;
const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;
const SETTING = { HEADER_TABLE_SIZE: 1, ENABLE_PUSH: 2, MAX_CONCURRENT_STREAMS: 3, INITIAL_WINDOW_SIZE: 4, MAX_FRAME_SIZE: 5, MAX_HEADER_LIST_SIZE: 6 } as const;
export const RST_CODE = { NO_ERROR: 0, PROTOCOL_ERROR: 1, REFUSED_STREAM: 7, CANCEL: 8 } as const;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const FRAME_HEADER = 9;
/** Frames svcd accepts (it does not raise SETTINGS_MAX_FRAME_SIZE from the protocol's default). */
const MAX_FRAME = 16_384;
/** What a component may send on one stream before svcd reads it (and on the connection, over all streams). */
const STREAM_WINDOW = 1 << 20;
const CONNECTION_WINDOW = 16 << 20;
/** A header block larger than this is a hostile or broken component: the connection is dropped. */
const MAX_HEADER_BLOCK = 256 * 1024;
const HIGHEST_STREAM_ID = 2 ** 31 - 1;

/** What a stream's owner hears. Exactly one of onData(…, true), onHeaders(…, true), onReset, onClosed ends it. */
export interface StreamHandler {
  /** The response headers first, then (END_STREAM) the trailers; a trailers-only answer is one block. */
  onHeaders(fields: HeaderField[], endStream: boolean): void;
  onData(chunk: Buffer, endStream: boolean): void;
  /** The component reset the stream (RST_STREAM), or refused it (GOAWAY past it: code REFUSED_STREAM). */
  onReset(code: number): void;
  /** The connection ended before the stream did. */
  onClosed(reason: string): void;
}

interface OpenStream {
  readonly handler: StreamHandler;
  /** Request bytes not sent yet (flow control), or undefined once END_STREAM went out. */
  body: Buffer | undefined;
  sendWindow: number;
  /** Bytes received since the last WINDOW_UPDATE for this stream. */
  unacknowledged: number;
}

export interface H2ConnectionEvents {
  /**
   * The component is going away (GOAWAY), or the connection ended after it had been set up: the next
   * connection may reach a new process. Called at most once per connection.
   */
  readonly onLost: () => void;
  /** The socket closed (also when it never connected). */
  readonly onClose: () => void;
}

export class H2Connection {
  readonly #socket: net.Socket;
  readonly #decoder = new HpackDecoder();
  readonly #streams = new Map<number, OpenStream>();
  #nextId = 1;
  #established = false;
  #goingAway = false;
  /** svcd closes it on purpose (retire): its end is no loss of the component. */
  #retiring = false;
  #closed = false;
  #closeReason = 'connection closed';
  #lostReported = false;
  // Peer settings and windows.
  #maxFrame = MAX_FRAME;
  #initialSendWindow = 65_535;
  /** 0 until the component's first SETTINGS: nothing is sent before its limits are known. */
  #maxStreams = 0;
  #settingsReceived = false;
  /** Streams waiting for one of the component's concurrent streams. */
  readonly #queued: { id: number; headerBlock: Buffer; body: Buffer; handler: StreamHandler }[] = [];
  #connectionSendWindow = 65_535;
  #unacknowledged = 0;
  // Reading.
  #input: Buffer = Buffer.alloc(0);
  /** A HEADERS frame without END_HEADERS: its stream, flags and the block so far, until CONTINUATION ends it. */
  #partialHeaders: { id: number; endStream: boolean; parts: Buffer[]; bytes: number } | undefined;
  // Writing: frames of this loop turn, flushed together.
  #output: Buffer[] = [];
  #flushScheduled = false;

  constructor(socketPath: string, private readonly events: H2ConnectionEvents) {
    this.#socket = net.connect(socketPath);
    this.#socket.on('connect', () => (this.#established = true));
    this.#socket.on('data', (chunk: Buffer) => this.#read(chunk));
    this.#socket.on('error', (err) => (this.#closeReason = err.message));
    this.#socket.on('close', () => this.#onSocketClose());
    // Calls keep the process alive through their deadline timers; an idle connection must not.
    this.#socket.unref();
    const settings = Buffer.alloc(18);
    [
      [SETTING.ENABLE_PUSH, 0],
      [SETTING.INITIAL_WINDOW_SIZE, STREAM_WINDOW],
      [SETTING.MAX_HEADER_LIST_SIZE, MAX_HEADER_BLOCK],
    ].forEach(([id, value], i) => {
      settings.writeUInt16BE(id!, i * 6);
      settings.writeUInt32BE(value!, i * 6 + 2);
    });
    this.#queue(PREFACE);
    this.#frame(FRAME.SETTINGS, 0, 0, settings);
    this.#windowUpdate(0, CONNECTION_WINDOW - 65_535);
  }

  /** Whether new streams may start here (not closing, ids left). */
  get usable(): boolean {
    return !this.#closed && !this.#goingAway && this.#nextId < HIGHEST_STREAM_ID;
  }

  /**
   * Starts a stream, or queues it until the component's first SETTINGS and while its
   * SETTINGS_MAX_CONCURRENT_STREAMS are all in use; returns its id, or undefined when this connection takes no
   * new streams.
   */
  open(headerBlock: Buffer, body: Buffer, handler: StreamHandler): number | undefined {
    if (!this.usable) return undefined;
    if (headerBlock.length > this.#maxFrame) throw new Error(`request headers of ${headerBlock.length} bytes exceed one frame`);
    const id = this.#nextId;
    this.#nextId += 2;
    // Queued streams keep their order, so ids still go out ascending.
    if (this.#queued.length > 0 || this.#streams.size >= this.#maxStreams) this.#queued.push({ id, headerBlock, body, handler });
    else this.#start(id, headerBlock, body, handler);
    return id;
  }

  /** Ends a stream svcd no longer wants (deadline, oversized reply): RST_STREAM CANCEL; its handler hears nothing more. */
  cancel(id: number): void {
    const queued = this.#queued.findIndex((q) => q.id === id);
    if (queued >= 0) {
      this.#queued.splice(queued, 1); // never sent: nothing to tell the component
      return;
    }
    if (!this.#streams.delete(id)) return;
    const code = Buffer.alloc(4);
    code.writeUInt32BE(RST_CODE.CANCEL);
    this.#frame(FRAME.RST_STREAM, 0, id, code);
    this.#startQueued();
    this.#closeIfDone();
  }

  /** No new streams; the socket closes once the open ones have ended. */
  retire(): void {
    this.#retiring = true;
    this.#goingAway = true;
    this.#closeIfDone();
  }

  destroy(reason: string): void {
    this.#closeReason = reason;
    this.#socket.destroy();
  }

  // ---- writing ----

  #start(id: number, headerBlock: Buffer, body: Buffer, handler: StreamHandler): void {
    const stream: OpenStream = { handler, body, sendWindow: this.#initialSendWindow, unacknowledged: 0 };
    this.#streams.set(id, stream);
    this.#frame(FRAME.HEADERS, FLAG.END_HEADERS, id, headerBlock);
    this.#sendBody(id, stream);
  }

  #startQueued(): void {
    while (this.#queued.length > 0 && this.#streams.size < this.#maxStreams && !this.#closed) {
      const next = this.#queued.shift()!;
      this.#start(next.id, next.headerBlock, next.body, next.handler);
    }
  }

  #sendBody(id: number, stream: OpenStream): void {
    const body = stream.body;
    if (body === undefined) return;
    let offset = 0;
    while (offset < body.length) {
      const size = Math.min(body.length - offset, this.#maxFrame, stream.sendWindow, this.#connectionSendWindow);
      if (size <= 0) break;
      const last = offset + size === body.length;
      this.#frame(FRAME.DATA, last ? FLAG.END_STREAM : 0, id, body.subarray(offset, offset + size));
      stream.sendWindow -= size;
      this.#connectionSendWindow -= size;
      offset += size;
    }
    if (body.length === 0) this.#frame(FRAME.DATA, FLAG.END_STREAM, id, body);
    stream.body = offset >= body.length ? undefined : body.subarray(offset);
  }

  /** After a window grew: streams waiting to send go on, oldest first. */
  #resumeSending(): void {
    for (const [id, stream] of this.#streams) {
      if (this.#connectionSendWindow <= 0) return;
      if (stream.body !== undefined) this.#sendBody(id, stream);
    }
  }

  #windowUpdate(id: number, increment: number): void {
    const payload = Buffer.alloc(4);
    payload.writeUInt32BE(increment);
    this.#frame(FRAME.WINDOW_UPDATE, 0, id, payload);
  }

  #frame(type: number, flags: number, id: number, payload: Buffer): void {
    const header = Buffer.allocUnsafe(FRAME_HEADER);
    header.writeUIntBE(payload.length, 0, 3);
    header[3] = type;
    header[4] = flags;
    header.writeUInt32BE(id, 5);
    this.#queue(header);
    if (payload.length > 0) this.#queue(payload);
  }

  #queue(bytes: Buffer): void {
    if (this.#closed) return;
    this.#output.push(bytes);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // With one call in flight there is nothing to wait for: out in this turn. With several, the frames of every
    // call started in this loop turn leave together.
    if (this.#streams.size <= 1) queueMicrotask(() => this.#flush());
    else setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#closed || this.#output.length === 0) return;
    const out = this.#output;
    this.#output = [];
    this.#socket.write(out.length === 1 ? out[0]! : Buffer.concat(out));
  }

  // ---- reading ----

  #read(chunk: Buffer): void {
    let input = this.#input.length === 0 ? chunk : Buffer.concat([this.#input, chunk]);
    try {
      while (input.length >= FRAME_HEADER) {
        const length = input.readUIntBE(0, 3);
        if (length > MAX_FRAME) throw new ProtocolError(`frame of ${length} bytes over the ${MAX_FRAME} allowed`);
        if (input.length < FRAME_HEADER + length) break;
        const type = input[3]!;
        const flags = input[4]!;
        const id = input.readUInt32BE(5) & 0x7fffffff;
        const payload = input.subarray(FRAME_HEADER, FRAME_HEADER + length);
        input = input.subarray(FRAME_HEADER + length);
        this.#onFrame(type, flags, id, payload);
        if (this.#closed) return;
      }
    } catch (err) {
      this.destroy(`HTTP/2 protocol error from the component: ${(err as Error).message}`);
      return;
    }
    this.#input = input;
  }

  #onFrame(type: number, flags: number, id: number, payload: Buffer): void {
    if (this.#partialHeaders && type !== FRAME.CONTINUATION) throw new ProtocolError('a header block was interrupted');
    switch (type) {
      case FRAME.DATA:
        return this.#onData(flags, id, payload);
      case FRAME.HEADERS:
        return this.#onHeaders(flags, id, payload);
      case FRAME.CONTINUATION:
        return this.#onContinuation(flags, id, payload);
      case FRAME.RST_STREAM:
        return this.#onReset(id, payload);
      case FRAME.SETTINGS:
        return this.#onSettings(flags, payload);
      case FRAME.PING:
        if ((flags & FLAG.ACK) === 0) this.#frame(FRAME.PING, FLAG.ACK, 0, Buffer.from(payload));
        return;
      case FRAME.GOAWAY:
        return this.#onGoaway(payload);
      case FRAME.WINDOW_UPDATE:
        return this.#onWindowUpdate(id, payload);
      case FRAME.PUSH_PROMISE:
        throw new ProtocolError('PUSH_PROMISE although push is disabled');
      default:
        return; // PRIORITY and unknown frame types are ignored, as the protocol says
    }
  }

  #onData(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new ProtocolError('DATA on stream 0');
    const data = unpadded(flags, payload);
    // Flow control counts the whole frame, also for streams svcd already cancelled.
    this.#unacknowledged += payload.length;
    if (this.#unacknowledged >= CONNECTION_WINDOW / 2) {
      this.#windowUpdate(0, this.#unacknowledged);
      this.#unacknowledged = 0;
    }
    const stream = this.#streams.get(id);
    if (!stream) return;
    const endStream = (flags & FLAG.END_STREAM) !== 0;
    stream.unacknowledged += payload.length;
    if (!endStream && stream.unacknowledged >= STREAM_WINDOW / 2) {
      this.#windowUpdate(id, stream.unacknowledged);
      stream.unacknowledged = 0;
    }
    if (endStream) this.#end(id);
    stream.handler.onData(data, endStream);
  }

  #onHeaders(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new ProtocolError('HEADERS on stream 0');
    let block = unpadded(flags, payload);
    if (flags & FLAG.PRIORITY) block = block.subarray(5);
    const endStream = (flags & FLAG.END_STREAM) !== 0;
    if (flags & FLAG.END_HEADERS) return this.#headerBlock(id, endStream, block);
    this.#partialHeaders = { id, endStream, parts: [block], bytes: block.length };
  }

  #onContinuation(flags: number, id: number, payload: Buffer): void {
    const partial = this.#partialHeaders;
    if (!partial || partial.id !== id) throw new ProtocolError('CONTINUATION without its HEADERS');
    partial.parts.push(payload);
    partial.bytes += payload.length;
    if (partial.bytes > MAX_HEADER_BLOCK) throw new ProtocolError(`header block over ${MAX_HEADER_BLOCK} bytes`);
    if ((flags & FLAG.END_HEADERS) === 0) return;
    this.#partialHeaders = undefined;
    this.#headerBlock(id, partial.endStream, Buffer.concat(partial.parts));
  }

  #headerBlock(id: number, endStream: boolean, block: Buffer): void {
    // Decoded even for streams svcd no longer follows: the decoder's table must see every block.
    let fields: HeaderField[];
    try {
      fields = this.#decoder.decode(block);
    } catch (err) {
      throw err instanceof HpackError ? new ProtocolError(`header compression: ${err.message}`) : err;
    }
    const stream = this.#streams.get(id);
    if (!stream) return;
    if (endStream) this.#end(id);
    stream.handler.onHeaders(fields, endStream);
  }

  #onReset(id: number, payload: Buffer): void {
    if (payload.length !== 4) throw new ProtocolError('RST_STREAM of the wrong size');
    const stream = this.#streams.get(id);
    if (!stream) return;
    this.#end(id);
    stream.handler.onReset(payload.readUInt32BE(0));
  }

  #onSettings(flags: number, payload: Buffer): void {
    if (flags & FLAG.ACK) return;
    if (payload.length % 6 !== 0) throw new ProtocolError('SETTINGS of the wrong size');
    if (!this.#settingsReceived) {
      this.#settingsReceived = true;
      this.#maxStreams = Infinity; // unless these settings say otherwise
    }
    for (let at = 0; at < payload.length; at += 6) {
      const id = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      if (id === SETTING.INITIAL_WINDOW_SIZE) {
        if (value > 2 ** 31 - 1) throw new ProtocolError('initial window over 2^31-1');
        const delta = value - this.#initialSendWindow;
        this.#initialSendWindow = value;
        for (const stream of this.#streams.values()) stream.sendWindow += delta;
      } else if (id === SETTING.MAX_FRAME_SIZE) {
        if (value < MAX_FRAME || value > 2 ** 24 - 1) throw new ProtocolError(`max frame size ${value}`);
        this.#maxFrame = value;
      } else if (id === SETTING.MAX_CONCURRENT_STREAMS) {
        this.#maxStreams = value;
      }
    }
    this.#frame(FRAME.SETTINGS, FLAG.ACK, 0, Buffer.alloc(0));
    this.#resumeSending();
    this.#startQueued();
  }

  #onGoaway(payload: Buffer): void {
    if (payload.length < 8) throw new ProtocolError('GOAWAY of the wrong size');
    const last = payload.readUInt32BE(0) & 0x7fffffff;
    this.#goingAway = true;
    this.#reportLost();
    // Streams after the last one the component will process were not processed: refused, safe to try again.
    for (const [id, stream] of this.#streams) {
      if (id <= last) continue;
      this.#streams.delete(id);
      stream.handler.onReset(RST_CODE.REFUSED_STREAM);
    }
    for (const never of this.#queued.splice(0)) never.handler.onReset(RST_CODE.REFUSED_STREAM);
    this.#closeIfDone();
  }

  #onWindowUpdate(id: number, payload: Buffer): void {
    if (payload.length !== 4) throw new ProtocolError('WINDOW_UPDATE of the wrong size');
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (id === 0) this.#connectionSendWindow += increment;
    else {
      const stream = this.#streams.get(id);
      if (stream) stream.sendWindow += increment;
    }
    this.#resumeSending();
  }

  #end(id: number): void {
    this.#streams.delete(id);
    this.#startQueued();
    this.#closeIfDone();
  }

  #closeIfDone(): void {
    if (this.#goingAway && this.#streams.size === 0 && this.#queued.length === 0 && !this.#closed) {
      this.#flush();
      this.#socket.end();
    }
  }

  #onSocketClose(): void {
    this.#closed = true;
    const streams = [...this.#streams.values(), ...this.#queued.splice(0)];
    this.#streams.clear();
    for (const stream of streams) stream.handler.onClosed(this.#closeReason);
    if (this.#established && !this.#retiring) this.#reportLost();
    this.events.onClose();
  }

  #reportLost(): void {
    if (this.#lostReported) return;
    this.#lostReported = true;
    this.events.onLost();
  }
}

class ProtocolError extends Error {}

function unpadded(flags: number, payload: Buffer): Buffer {
  if ((flags & FLAG.PADDED) === 0) return payload;
  const padding = payload[0] ?? 0;
  if (padding >= payload.length) throw new ProtocolError('padding longer than the frame');
  return payload.subarray(1, payload.length - padding);
}
