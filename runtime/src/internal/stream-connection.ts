import type net from 'node:net';
import { Readable } from 'node:stream';
import { RuntimeError } from '../errors/runtime-error.js';
import { corkForTurn } from '../util/cork-for-turn.js';
import { carried } from './carried-error.js';
import { DEFAULT_PEER_MESSAGE_BYTES } from './peer-service.js';
import { FrameSplitter, FrameType, frameOf, uint32Payload } from './stream-frames.js';

/**
 * Bytes of one call's body its sender may have sent beyond what the receiver has read: what a call may hold of the
 * receiver's memory (beside the message that crosses it), so a reader that is behind slows its own call only,
 * never the others on the connection.
 */
export const WINDOW_BYTES = 256 * 1024;

/** How long a connection that broke the protocol is given to close after the Error frame that says so. */
const BROKEN_CLOSE_MS = 5_000;

type FrameHandler = (type: FrameType, id: number, payload: Buffer) => void;

/**
 * One connection between two sidecars, shared by every call between them: frames out (the writes of one turn of
 * the event loop leave in one system call, whichever calls made them) and frames in, cut whole and handed on. A
 * frame over the size limit, or one that breaks the protocol, closes the connection, after an Error frame on id 0
 * that says why (the other side fails its calls with it).
 */
export class FrameConnection {
  readonly #drainWaiters = new Set<() => void>();
  readonly #splitter = new FrameSplitter(DEFAULT_PEER_MESSAGE_BYTES);

  constructor(
    readonly socket: net.Socket,
    onFrame: FrameHandler,
    onClose: (err: Error) => void,
  ) {
    let failure: Error | undefined;
    socket.on('data', (chunk: Buffer) => {
      if (failure !== undefined || socket.destroyed) return;
      try {
        this.#splitter.push(chunk, onFrame);
      } catch (err) {
        failure = new RuntimeError('ERR_DIRECT_INVOKE', `the other sidecar broke the protocol: ${(err as Error).message}`);
        this.send(FrameType.Error, 0, Buffer.from(carried(failure as RuntimeError)));
        socket.end();
        socket.resume();
        // The other side closes on that Error frame; one that does not is cut off.
        setTimeout(() => socket.destroy(), BROKEN_CLOSE_MS).unref();
      }
    });
    socket.on('drain', () => {
      const waiters = [...this.#drainWaiters];
      this.#drainWaiters.clear();
      for (const w of waiters) w();
    });
    socket.on('error', (err) => (failure ??= err));
    socket.once('close', () => onClose(failure ?? new Error('the connection was closed')));
  }

  /** False: the socket holds more than it should; senders of bodies wait for `whenDrained`. */
  send(type: FrameType, id: number, payload: Buffer): boolean {
    if (this.socket.destroyed) return true;
    corkForTurn(this.socket);
    let ok = true;
    for (const part of frameOf(type, id, payload)) ok = this.socket.write(part);
    return ok;
  }

  get needsDrain(): boolean {
    return this.socket.writableNeedDrain;
  }

  whenDrained(resume: () => void): void {
    this.#drainWaiters.add(resume);
  }

  forgetWaiter(resume: () => void): void {
    this.#drainWaiters.delete(resume);
  }

  /** Fails the connection: every call on it sees `err`. */
  fail(err: Error): void {
    this.socket.destroy(err);
  }
}

/**
 * One call's body as its receiver reads it, one message per chunk, at most one read ahead beyond what the sender's
 * window lets it send; what the reader takes is granted back to the sender (`grant`). A body destroyed by its
 * reader drops what still comes and grants it at once: the sender ends, and the connection serves the others.
 */
export class CallBody extends Readable {
  #owed = 0;
  /** Bytes received and not yet granted back: the sender's window bounds them. */
  #unread = 0;

  constructor(
    private readonly grant: (bytes: number) => void,
    private readonly onDestroy: () => void,
  ) {
    super({ objectMode: true, highWaterMark: 1 });
  }

  /** A message for the reader; throws when the sender went past its window. */
  deliver(payload: Buffer): void {
    if (this.destroyed || this.readableEnded) return this.grant(payload.length);
    this.#unread += payload.length;
    if (this.#unread > WINDOW_BYTES + DEFAULT_PEER_MESSAGE_BYTES) throw new Error('a call sent more than its window');
    if (this.push(payload)) this.#give(payload.length);
    else this.#owed += payload.length;
  }

  override _read(): void {
    if (this.#owed === 0) return;
    const owed = this.#owed;
    this.#owed = 0;
    this.#give(owed);
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.onDestroy();
    callback(err);
  }

  #give(bytes: number): void {
    this.#unread -= bytes;
    this.grant(bytes);
  }
}

/** The Window frame granting `bytes` of a call's body back to its sender. */
export function grantOn(connection: FrameConnection, id: number): (bytes: number) => void {
  return (bytes) => {
    if (bytes > 0) connection.send(FrameType.Window, id, uint32Payload(bytes));
  };
}

/**
 * Sends one call's body as Message frames while the receiver's window has room and the socket is not full, the
 * body paused otherwise. Created with the call, so Window frames that come before its body starts count.
 */
export class BodySender {
  #credit = WINDOW_BYTES;
  #body: Readable | undefined;
  #stopped = false;

  constructor(
    private readonly connection: FrameConnection,
    private readonly id: number,
  ) {}

  /** Sends `body`; resolves when it ended (all of it handed to the connection, or dropped once stopped), rejects with its error. */
  pump(body: Readable): Promise<void> {
    this.#body = body;
    return new Promise((resolve, reject) => {
      body.on('data', this.#send);
      body.once('end', () => resolve());
      body.once('error', reject);
      // Destroyed without an error before its end: a cut body, never to be passed on as whole.
      body.once('close', () => (body.readableEnded || this.#stopped ? resolve() : reject(new Error('the body was cut before its end'))));
    });
  }

  /** Whether its body began to be read: a call refused after that cannot be made again elsewhere. */
  get pumping(): boolean {
    return this.#body !== undefined;
  }

  credit(bytes: number): void {
    this.#credit += bytes;
    this.#resume();
  }

  /**
   * No more of the body is sent. `drain`: the rest is read and dropped (a caller's request body: its own connection
   * stays usable); `destroy`: it is destroyed (an answer nobody will read).
   */
  stop(rest: 'drain' | 'destroy'): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.connection.forgetWaiter(this.#resume);
    const body = this.#body;
    if (!body) return;
    body.off('data', this.#send);
    if (rest === 'drain') body.resume();
    else body.destroy();
  }

  readonly #send = (chunk: Buffer | string): void => {
    const payload = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#credit -= payload.length;
    const room = this.connection.send(FrameType.Message, this.id, payload);
    if (this.#credit > 0 && room) return;
    this.#body?.pause();
    if (!room) this.connection.whenDrained(this.#resume);
  };

  readonly #resume = (): void => {
    if (this.#stopped || this.#credit <= 0) return;
    if (this.connection.needsDrain) return this.connection.whenDrained(this.#resume);
    this.#body?.resume();
  };
}
