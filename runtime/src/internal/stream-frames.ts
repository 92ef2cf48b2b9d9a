import { Readable, type Writable } from 'node:stream';
import { corkForTurn } from '../util/cork-for-turn.js';

/**
 * Frames of a streaming call between sidecars (stream-service.ts): a type byte, a 4-byte big-endian length, then
 * that many bytes. A body of HTTP/1.1 is a byte stream; the frames keep each message whole (a proxied gRPC message
 * crosses as one chunk) and say how the answer ends (its trailer, or an error after its head).
 */
export const enum FrameType {
  /** The call's or the answer's head (JSON): the first frame each way. */
  Head = 1,
  /** One chunk of the body. */
  Message = 2,
  /** What an answer ends with after its body (JSON): a proxied call's status. */
  Trailer = 3,
  /** A failure (JSON, carried-error.ts): before the head instead of it, or after it, ending the answer. */
  Error = 4,
}

const HEADER_BYTES = 5;
/** Below this a frame is one buffer (one chunk on the wire); above, its payload is written as it is, not copied. */
const COPY_BELOW_BYTES = 16 * 1024;

/** The bytes of one frame, as one or two buffers to write in order. */
export function frameOf(type: FrameType, payload: Buffer): Buffer[] {
  if (payload.length < COPY_BELOW_BYTES) {
    const out = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
    out[0] = type;
    out.writeUInt32BE(payload.length, 1);
    payload.copy(out, HEADER_BYTES);
    return [out];
  }
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header[0] = type;
  header.writeUInt32BE(payload.length, 1);
  return [header, payload];
}

/** Writes one frame to a call's request or answer, corked with the call's other writes of this turn; false: wait for 'drain'. */
export function writeFrame(out: Writable, type: FrameType, payload: Buffer): boolean {
  corkForTurn(out);
  let ok = true;
  for (const part of frameOf(type, payload)) ok = out.write(part);
  return ok;
}

/**
 * Cuts a byte stream into frames, whatever the sizes of the chunks it arrives in. The chunks of a frame not yet
 * whole are kept as they came and joined once, when it is: a 64 MiB message in 64 KiB chunks is copied once, not
 * a thousand times over.
 */
class FrameSplitter {
  #parts: Buffer[] = [];
  #partsBytes = 0;
  /** Bytes the kept parts must reach before a frame can be cut from them. */
  #needed = 0;

  constructor(private readonly maxBytes: number) {}

  /** Calls `each` for every frame `chunk` completes. Throws when a frame announces more than the limit. */
  push(chunk: Buffer, each: (type: FrameType, payload: Buffer) => void): void {
    let data = chunk;
    if (this.#parts.length > 0) {
      this.#parts.push(chunk);
      this.#partsBytes += chunk.length;
      if (this.#partsBytes < this.#needed) return;
      data = Buffer.concat(this.#parts, this.#partsBytes);
      this.#parts = [];
      this.#partsBytes = 0;
    }
    while (data.length >= HEADER_BYTES) {
      const length = data.readUInt32BE(1);
      if (length > this.maxBytes) throw new Error(`a frame of ${length} bytes is over the limit of ${this.maxBytes}`);
      if (data.length < HEADER_BYTES + length) break;
      each(data[0] as FrameType, data.subarray(HEADER_BYTES, HEADER_BYTES + length));
      data = data.subarray(HEADER_BYTES + length);
    }
    if (data.length === 0) return;
    this.#parts = [data];
    this.#partsBytes = data.length;
    this.#needed = data.length < HEADER_BYTES ? HEADER_BYTES : HEADER_BYTES + data.readUInt32BE(1);
  }
}

export interface FramedBodyOptions {
  readonly maxBytes: number;
  /** Every frame that is not a Message, in order. */
  readonly onFrame: (type: FrameType, payload: Buffer) => void;
  /** Destroying the body: what becomes of the call (cancel it, or let the rest of the source go unread). */
  readonly onDestroy: () => void;
  /** The error the body fails with when the source breaks off or sends a bad frame. */
  readonly failure: (err: Error) => Error;
}

/**
 * The Message frames of `source` as an object-mode stream, one payload per chunk, read with back-pressure: the
 * source pauses while the reader is behind. Ends when the source ends; a source that breaks off or sends a bad
 * frame destroys it with that error.
 */
export class FramedBody extends Readable {
  readonly #source: Readable;
  readonly #onDestroy: () => void;

  constructor(source: Readable, o: FramedBodyOptions) {
    // One message read ahead at most: nothing piles up for a reader that has not started (a call not yet
    // authenticated) or is behind.
    super({ objectMode: true, highWaterMark: 1 });
    this.#source = source;
    this.#onDestroy = o.onDestroy;
    const splitter = new FrameSplitter(o.maxBytes);
    const each = (type: FrameType, payload: Buffer) => {
      // Destroyed, here or by a reader of a frame before this one in the same chunk: nobody reads on, and the
      // source, resumed by onDestroy where the rest goes unread, must not be paused again.
      if (this.destroyed) return;
      if (type !== FrameType.Message) return o.onFrame(type, payload);
      if (!this.push(payload)) source.pause();
    };
    source.on('data', (chunk: Buffer) => {
      if (this.destroyed) return; // the rest of the source goes by unparsed
      try {
        splitter.push(chunk, each);
      } catch (err) {
        this.destroy(o.failure(err as Error));
      }
    });
    source.once('end', () => this.push(null));
    source.once('error', (err) => this.destroy(o.failure(err)));
    // An IncomingMessage whose connection is cut emits 'aborted' (and 'close') without 'end'.
    source.once('close', () => {
      if (!source.readableEnded) this.destroy(o.failure(new Error('the connection was cut before the end')));
    });
  }

  override _read(): void {
    this.#source.resume();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    if (!this.#source.readableEnded) this.#onDestroy();
    callback(err);
  }
}
