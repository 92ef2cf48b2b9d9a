import net from 'node:net';
import type { Readable } from 'node:stream';
import { abortReason } from '../util/abort-reason.js';
import { fromCarried } from './carried-error.js';
import { OutgoingCall, StreamUnreachableError, type OpenFrame, type StreamReply } from './outgoing-call.js';
import { FrameConnection } from './stream-connection.js';
import { FrameType, STREAM_PREFACE } from './stream-frames.js';
import { IDLE_CONNECTION_MS } from './stream-service.js';

export { StreamUnreachableError, type StreamReply } from './outgoing-call.js';

export interface StreamCallOptions {
  readonly metadata: Readonly<Record<string, string>>;
  /** How long to wait for a connection to a sidecar not connected yet. */
  readonly connectTimeoutMs: number;
  readonly signal?: AbortSignal;
}

/** The highest call id: a connection that reaches it takes no new calls, and the next call makes another. */
const LAST_ID = 0xffff_ffff;

/** `host:port` or `[v6]:port` as name resolution records it. */
function hostAndPort(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(colon + 1)) };
}

/**
 * The connection to one other sidecar, shared by every call to it. A call waits for the connection before it
 * reads anything of its body, so a sidecar that cannot be reached fails it with StreamUnreachableError with the
 * body unread: the caller may try another one. Closes after IDLE_CONNECTION_MS without calls, and once the other
 * sidecar says it is stopping (GoAway) and its calls are over.
 */
class SidecarConnection {
  readonly #calls = new Map<number, OutgoingCall>();
  readonly #frames: FrameConnection;
  readonly #connected: Promise<void>;
  #nextId = 1;
  #isConnected = false;
  #retired = false;
  /** The highest call id the other sidecar may have run: all of them until it says otherwise (GoAway). */
  #lastRun = LAST_ID;
  #closed: Error | undefined;
  #idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly address: string,
    connectTimeoutMs: number,
    private readonly events: { readonly retired: (c: SidecarConnection) => void; readonly closed: (c: SidecarConnection) => void },
  ) {
    const socket = net.connect({ ...hostAndPort(address), noDelay: true });
    // A peer whose host vanished without a word is found out by the kernel's probes, not by a call hanging on.
    socket.setKeepAlive(true, 10_000);
    this.#frames = new FrameConnection(socket, (type, id, payload) => this.#onFrame(type, id, payload), (err) => this.#lost(err));
    this.#connected = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => socket.destroy(new Error(`no connection within ${connectTimeoutMs} ms`)), connectTimeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.write(STREAM_PREFACE);
        this.#isConnected = true;
        resolve();
      });
      socket.once('close', () => {
        clearTimeout(timer);
        reject(new StreamUnreachableError(address, this.#closed?.message ?? 'the connection was closed'));
      });
    });
    this.#connected.catch(() => undefined);
  }

  /** Whether new calls may go on this connection. */
  get usable(): boolean {
    return !this.#retired && this.#closed === undefined;
  }

  call(open: OpenFrame, body: Readable | undefined, signal: AbortSignal | undefined): Promise<StreamReply> {
    if (!this.#isConnected) return this.#whenConnected(signal).then(() => this.call(open, body, signal));
    // Closed since it connected, with nothing of this call sent: nothing ran there.
    if (this.#closed) return Promise.reject(new StreamUnreachableError(this.address, this.#closed.message));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const id = this.#nextId++;
    if (this.#nextId === LAST_ID) this.retire();
    clearTimeout(this.#idle);
    const call = new OutgoingCall(this.#frames, id, this.address, signal, (done) => this.#ended(done));
    this.#calls.set(id, call);
    call.start(open, body);
    return call.answer;
  }

  /** Resolves once connected; rejects with StreamUnreachableError when that fails, or with the abort's reason. */
  #whenConnected(signal: AbortSignal | undefined): Promise<void> {
    return signal ? Promise.race([this.#connected, abortedBy(signal)]) : this.#connected;
  }

  /** Takes no new calls; closes once those under way are over. */
  retire(): void {
    if (this.#retired) return;
    this.#retired = true;
    this.events.retired(this);
    if (this.#calls.size === 0) this.#frames.socket.end();
  }

  destroy(): void {
    this.#frames.socket.destroy();
  }

  #onFrame(type: FrameType, id: number, payload: Buffer): void {
    if (id !== 0) return this.#calls.get(id)?.onFrame(type, payload);
    if (type === FrameType.GoAway) {
      this.#lastRun = payload.readUInt32BE(0);
      return this.retire();
    }
    if (type === FrameType.Error) this.#frames.fail(fromCarried(payload.toString()));
  }

  #ended(id: number): void {
    this.#calls.delete(id);
    if (this.#calls.size > 0) return;
    if (this.#retired) return void this.#frames.socket.end();
    this.#idle = setTimeout(() => this.retire(), IDLE_CONNECTION_MS).unref();
  }

  #lost(err: Error): void {
    this.#closed = err;
    clearTimeout(this.#idle);
    this.events.retired(this);
    this.events.closed(this);
    const calls = [...this.#calls];
    this.#calls.clear();
    for (const [id, call] of calls) {
      if (id > this.#lastRun) call.unrun();
      else call.lost(err);
    }
  }
}

function abortedBy(signal: AbortSignal): Promise<void> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    signal.addEventListener('abort', () => reject(abortReason(signal)), { once: true });
  });
}

/**
 * Streaming calls to other sidecars' internal ports (stream-service.ts): one connection per sidecar, every call to
 * it a stream of frames on it, so the calls of one turn of the event loop leave in one system call.
 */
export class StreamClients {
  /** The connection new calls to each address take. */
  readonly #connections = new Map<string, SidecarConnection>();
  /** Every connection not closed yet, retired ones too (their calls go on). */
  readonly #open = new Set<SidecarConnection>();

  call(address: string, method: string, head: unknown, body: Readable | undefined, o: StreamCallOptions): Promise<StreamReply> {
    if (o.signal?.aborted) return Promise.reject(abortReason(o.signal));
    let connection = this.#connections.get(address);
    if (!connection?.usable) {
      connection = new SidecarConnection(address, o.connectTimeoutMs, {
        retired: (c) => {
          if (this.#connections.get(address) === c) this.#connections.delete(address);
        },
        closed: (c) => this.#open.delete(c),
      });
      this.#connections.set(address, connection);
      this.#open.add(connection);
    }
    return connection.call({ method, metadata: o.metadata, head }, body, o.signal);
  }

  /** A sidecar that went away: its connection takes no new calls. */
  forget(address: string): void {
    this.#connections.get(address)?.retire();
  }

  close(): void {
    for (const connection of this.#open) connection.destroy();
    this.#open.clear();
    this.#connections.clear();
  }
}
