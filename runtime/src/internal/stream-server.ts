import type net from 'node:net';
import type { Readable } from 'node:stream';
import { ensureError, isRuntimeError, RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { readFirstBytes } from '../util/first-bytes.js';
import { carried } from './carried-error.js';
import type { OpenFrame } from './outgoing-call.js';
import { BodySender, CallBody, FrameConnection, grantOn } from './stream-connection.js';
import { FrameType, NOTHING, REFUSED, STREAM_PREFACE, uint32Payload } from './stream-frames.js';
import { decodeHead, encodeHead, IDLE_CONNECTION_MS } from './stream-service.js';

/** One streaming call as its handler sees it. */
export interface StreamCall {
  readonly head: unknown;
  /** The request body; read it or leave it: the call's answer does not wait for it. */
  readonly body: Readable;
  /** One header of the call (the calling sidecar's credentials). */
  readonly header: (name: string) => string | undefined;
  /** Aborted when the caller cancels or goes away. */
  readonly signal: AbortSignal;
}

export interface StreamAnswer {
  readonly head: unknown;
  /** Sent after the head, one message per chunk; none: the answer is the head alone. */
  readonly body?: Readable;
  /** Asked for once the body is sent, and sent before the answer ends. */
  readonly trailer?: () => Promise<unknown>;
}

export type StreamHandler = (call: StreamCall) => Promise<StreamAnswer>;

interface Registered {
  readonly handler: StreamHandler;
  readonly log: Logger;
}

/** A connection that has not sent its whole preface by then is closed. */
const PREFACE_MS = 10_000;

function openFrame(payload: Buffer): OpenFrame {
  const open = decodeHead(payload) as Partial<OpenFrame> | null;
  if (typeof open?.method !== 'string' || typeof open.metadata !== 'object' || open.metadata === null) throw new Error('a malformed call');
  return open as OpenFrame;
}

/** One of the caller's metadata; anything but a string (a peer of another version, or a hostile one) is none. */
function headerOf(open: OpenFrame, name: string): string | undefined {
  const value: unknown = open.metadata[name];
  return typeof value === 'string' ? value : undefined;
}

/** One call to this sidecar: runs its handler and sends the answer, with back-pressure from the caller's window. */
class IncomingCall {
  readonly #body: CallBody;
  readonly #abort = new AbortController();
  readonly #sender: BodySender;
  #over = false;

  constructor(
    private readonly frames: FrameConnection,
    private readonly id: number,
    private readonly done: (id: number) => void,
  ) {
    // The handler done with the body: what is left of it goes by unread (granted back, so the caller goes on).
    this.#body = new CallBody(grantOn(frames, id), () => undefined);
    // A body cut by its caller fails for a handler reading it; one that does not read it is told by its signal.
    this.#body.on('error', () => undefined);
    this.#sender = new BodySender(frames, id);
  }

  async run(payload: Buffer, lookup: (method: string) => Registered | undefined): Promise<void> {
    let method = '';
    let log: Logger | undefined;
    try {
      const open = openFrame(payload);
      method = open.method;
      const registered = lookup(method);
      if (!registered) throw new RuntimeError('ERR_DIRECT_INVOKE', `the target sidecar does not serve ${method}`);
      log = registered.log;
      const answer = await registered.handler({ head: open.head, body: this.#body, header: (name) => headerOf(open, name), signal: this.#abort.signal });
      await this.#send(answer);
    } catch (err) {
      if (this.#over) return;
      if (!isRuntimeError(err)) log?.warn({ method, err: ensureError(err).message }, 'internal streaming call failed');
      const failure = isRuntimeError(err) ? err : new RuntimeError('ERR_DIRECT_INVOKE', `the target sidecar failed the call: ${ensureError(err).message}`);
      this.frames.send(FrameType.Error, this.id, Buffer.from(carried(failure)));
    } finally {
      this.#body.destroy();
      this.#end();
    }
  }

  onFrame(type: FrameType, payload: Buffer): void {
    if (type === FrameType.Message) return this.#body.deliver(payload);
    if (type === FrameType.End) return void this.#body.push(null);
    if (type === FrameType.Window) return this.#sender.credit(payload.readUInt32BE(0));
    if (type === FrameType.Reset) return this.cancel(new Error('the calling sidecar cancelled the call'));
    throw new Error(`a call carries no frame of type ${type}`);
  }

  /** The caller gave the call up, or went away: the handler is told, and nothing more is sent. */
  cancel(why: Error): void {
    if (this.#over) return;
    this.#abort.abort(why);
    if (!this.#body.readableEnded) this.#body.destroy(why);
    this.#sender.stop('destroy');
    this.#end();
  }

  /** Its head, its body one frame per chunk, its trailer, then the end. */
  async #send(answer: StreamAnswer): Promise<void> {
    if (this.#over) return void answer.body?.destroy();
    this.frames.send(FrameType.Head, this.id, encodeHead(answer.head));
    if (answer.body) await this.#sender.pump(answer.body);
    if (this.#over) return;
    if (answer.trailer) this.frames.send(FrameType.Trailer, this.id, encodeHead(await answer.trailer()));
    this.frames.send(FrameType.End, this.id, NOTHING);
  }

  #end(): void {
    if (this.#over) return;
    this.#over = true;
    this.done(this.id);
  }
}

/**
 * The calls of one calling sidecar, on its connection. After GoAway (this sidecar stopping) a new call is refused
 * unrun; the connection closes once the calls under way are over. Idle for twice the caller's idle time, it closes
 * (the caller closes first: it never reuses a connection this side is closing).
 */
class CallerConnection {
  readonly #calls = new Map<number, IncomingCall>();
  readonly #frames: FrameConnection;
  #goingAway = false;
  /** Callers number their calls upward from 1: the highest id opened here, what GoAway tells the caller. */
  #lastOpened = 0;

  constructor(
    socket: net.Socket,
    private readonly lookup: (method: string) => Registered | undefined,
    private readonly closed: (c: CallerConnection) => void,
  ) {
    socket.setNoDelay(true);
    socket.setTimeout(2 * IDLE_CONNECTION_MS, () => {
      if (this.#calls.size === 0) socket.destroy();
    });
    this.#frames = new FrameConnection(socket, (type, id, payload) => this.#onFrame(type, id, payload), (err) => this.#lost(err));
  }

  goAway(): void {
    if (this.#goingAway) return;
    this.#goingAway = true;
    this.#frames.send(FrameType.GoAway, 0, uint32Payload(this.#lastOpened));
    if (this.#calls.size === 0) this.#frames.socket.end();
  }

  destroy(): void {
    this.#frames.socket.destroy();
  }

  #onFrame(type: FrameType, id: number, payload: Buffer): void {
    if (type !== FrameType.Open) return this.#calls.get(id)?.onFrame(type, payload);
    if (id <= this.#lastOpened) throw new Error(`call ${id} was opened out of order`);
    this.#lastOpened = id;
    if (this.#goingAway) return void this.#frames.send(FrameType.Reset, id, REFUSED);
    const call = new IncomingCall(this.#frames, id, (ended) => this.#ended(ended));
    this.#calls.set(id, call);
    void call.run(payload, this.lookup);
  }

  #ended(id: number): void {
    this.#calls.delete(id);
    if (this.#goingAway && this.#calls.size === 0) this.#frames.socket.end();
  }

  #lost(err: Error): void {
    const calls = [...this.#calls.values()];
    this.#calls.clear();
    const why = new Error(`the connection was cut before the end (${err.message})`);
    for (const call of calls) call.cancel(why);
    this.closed(this);
  }
}

/**
 * The streaming methods of the internal port (stream-service.ts). A handler's RuntimeError goes back whole in an
 * Error frame, before the answer's head or after it; anything else is logged and goes back as ERR_DIRECT_INVOKE
 * naming it.
 */
export class StreamServer {
  readonly #handlers = new Map<string, Registered>();
  readonly #connections = new Set<CallerConnection>();
  #stopping = false;
  /** Who waits for the last connection to close (stop). */
  #drained: (() => void) | undefined;

  add(handlers: Readonly<Record<string, StreamHandler>>, log: Logger): void {
    for (const [method, handler] of Object.entries(handlers)) this.#handlers.set(method, { handler, log });
  }

  /** A connection whose first bytes (put back, paused) are to be the preface of streaming calls. */
  accept(socket: net.Socket): void {
    readFirstBytes(socket, STREAM_PREFACE.length, PREFACE_MS, (preface) => {
      if (!preface.equals(STREAM_PREFACE)) return void socket.destroy();
      const connection = new CallerConnection(socket, (method) => this.#handlers.get(method), (c) => this.#closed(c));
      this.#connections.add(connection);
      if (this.#stopping) connection.goAway();
    });
  }

  /** Refuses new calls, lets those under way end (for `graceMs` at most), then closes every connection. */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    for (const c of this.#connections) c.goAway();
    if (this.#connections.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.#drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    for (const c of this.#connections) c.destroy();
  }

  #closed(connection: CallerConnection): void {
    this.#connections.delete(connection);
    if (this.#connections.size === 0) this.#drained?.();
  }
}
