/**
 * Frames of the streaming calls between sidecars (stream-service.ts): a type byte, a 4-byte big-endian call id, a
 * 4-byte big-endian length, then that many bytes. Every call to one sidecar shares one connection; the id says
 * whose frame it is (0: the connection's own).
 */
export const enum FrameType {
  /** Caller → callee, the call's first frame (JSON): its method, its metadata and its head. */
  Open = 1,
  /** Callee → caller, the answer's first frame (JSON). */
  Head = 2,
  /** One chunk of a body, whole: a proxied gRPC message crosses as one. */
  Message = 3,
  /** The sender's side of the call is whole: its body ended (the caller's), or its answer did (the callee's). */
  End = 4,
  /** Callee → caller, after the answer's body and before its End (JSON): a proxied call's status. */
  Trailer = 5,
  /** Callee → caller, a failure (JSON, carried-error.ts) instead of the answer's head or after it; ends the call. */
  Error = 6,
  /** Either way, the call is given up: cancelled (caller), or refused unrun (callee; payload `refused`). */
  Reset = 7,
  /** The receiver read this many more bytes of the call's body (4 bytes): the sender may send as many more. */
  Window = 8,
  /**
   * Callee → caller, on id 0: this sidecar is stopping. Its payload (4 bytes) is the highest call id it opened:
   * a call with a higher id never ran there, and calls opened after it are refused.
   */
  GoAway = 9,
}

/** The first bytes a caller sends on a new connection: the internal port tells streaming calls apart by them. */
export const STREAM_PREFACE = Buffer.from('SVCSTREAM/1\n', 'latin1');
/** The payload of a frame that carries none (End, a cancelling Reset). */
export const NOTHING = Buffer.alloc(0);
/** What a Reset's payload says when the callee ran nothing of the call: it may be made elsewhere. */
export const REFUSED = Buffer.from('refused');

const HEADER_BYTES = 9;
/** Below this a frame is one buffer; above, its payload is written as it is, not copied. */
const COPY_BELOW_BYTES = 16 * 1024;

/** The bytes of one frame, as one or two buffers to write in order. */
export function frameOf(type: FrameType, id: number, payload: Buffer): Buffer[] {
  if (payload.length < COPY_BELOW_BYTES) {
    const out = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
    out[0] = type;
    out.writeUInt32BE(id, 1);
    out.writeUInt32BE(payload.length, 5);
    payload.copy(out, HEADER_BYTES);
    return [out];
  }
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header[0] = type;
  header.writeUInt32BE(id, 1);
  header.writeUInt32BE(payload.length, 5);
  return [header, payload];
}

/** The 4-byte payload of a Window frame (bytes granted) or a GoAway frame (the last call id opened). */
export function uint32Payload(bytes: number): Buffer {
  const out = Buffer.allocUnsafe(4);
  out.writeUInt32BE(bytes, 0);
  return out;
}

/**
 * Cuts a byte stream into frames, whatever the sizes of the chunks it arrives in. The chunks of a frame not yet
 * whole are kept as they came and joined once, when it is: a 64 MiB message in 64 KiB chunks is copied once, not
 * a thousand times over.
 */
export class FrameSplitter {
  #parts: Buffer[] = [];
  #partsBytes = 0;
  /** Bytes the kept parts must reach before a frame can be cut from them. */
  #needed = 0;

  constructor(private readonly maxBytes: number) {}

  /** Calls `each` for every frame `chunk` completes. Throws when a frame announces more than the limit. */
  push(chunk: Buffer, each: (type: FrameType, id: number, payload: Buffer) => void): void {
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
      const length = data.readUInt32BE(5);
      if (length > this.maxBytes) throw new Error(`a frame of ${length} bytes is over the limit of ${this.maxBytes}`);
      if (data.length < HEADER_BYTES + length) break;
      each(data[0] as FrameType, data.readUInt32BE(1), data.subarray(HEADER_BYTES, HEADER_BYTES + length));
      data = data.subarray(HEADER_BYTES + length);
    }
    if (data.length === 0) return;
    this.#parts = [data];
    this.#partsBytes = data.length;
    this.#needed = data.length < HEADER_BYTES ? HEADER_BYTES : HEADER_BYTES + data.readUInt32BE(5);
  }
}
