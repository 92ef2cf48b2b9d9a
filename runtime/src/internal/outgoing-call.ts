import type { Readable } from 'node:stream';
import { RuntimeError } from '../errors/runtime-error.js';
import { abortReason } from '../util/abort-reason.js';
import { fromCarried } from './carried-error.js';
import { BodySender, CallBody, grantOn, type FrameConnection } from './stream-connection.js';
import { FrameType, NOTHING, REFUSED } from './stream-frames.js';
import { decodeHead, encodeHead } from './stream-service.js';

/** The other sidecar could not be reached: nothing ran there, so the call may be tried elsewhere. */
export class StreamUnreachableError extends RuntimeError {
  constructor(address: string, detail: string) {
    super('ERR_DIRECT_INVOKE_UNREACHABLE', `sidecar ${address} is unreachable: ${detail}`);
  }
}

export interface StreamReply {
  readonly head: unknown;
  /** One chunk per message. */
  readonly body: Readable;
  /** The answer's trailer (undefined: none) once the call ended OK; rejects with the body's error otherwise. */
  readonly trailer: Promise<unknown>;
}

/** What a call opens with: the method, the caller's credentials, the head. */
export interface OpenFrame {
  readonly method: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly head: unknown;
}

/**
 * One call from this sidecar on a shared connection (stream-client.ts): sends its Open frame and its body, and
 * turns the frames that come back for it into the answer (`answer`), its body and its trailer. `done` is called
 * once, when nothing more of the call will be sent or received.
 */
export class OutgoingCall {
  readonly answer: Promise<StreamReply>;
  readonly #reply: CallBody;
  readonly #ended: Promise<unknown>;
  readonly #sender: BodySender;
  #resolve!: (reply: StreamReply) => void;
  #reject!: (err: Error) => void;
  #answered = false;
  #finished = false;
  /** Whether this side sent its End (or never will: given up). */
  #sentEnd = false;
  #trailer: unknown;

  constructor(
    private readonly connection: FrameConnection,
    private readonly id: number,
    private readonly address: string,
    private readonly signal: AbortSignal | undefined,
    private readonly done: (id: number) => void,
  ) {
    this.answer = new Promise<StreamReply>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#sender = new BodySender(connection, id);
    // The reader destroying the answer's body before its end cancels the call.
    this.#reply = new CallBody(grantOn(connection, id), () => {
      if (this.#finished) return;
      this.#cancel();
      this.#finish(false);
    });
    this.#ended = new Promise<unknown>((resolve, reject) => {
      this.#reply.once('end', () => resolve(this.#trailer));
      this.#reply.once('error', reject);
    });
    this.#ended.catch(() => undefined);
    signal?.addEventListener('abort', this.#aborted, { once: true });
  }

  /** Sends the Open frame and then the body; a body that fails cancels the call (the other side sees it cut). */
  start(open: OpenFrame, body: Readable | undefined): void {
    this.connection.send(FrameType.Open, this.id, encodeHead(open));
    if (!body) return this.#sendEnd();
    this.#sender.pump(body).then(
      () => this.#sendEnd(),
      (err: Error) => {
        this.#cancel();
        this.#fail(new RuntimeError('ERR_DIRECT_INVOKE', `the call to sidecar ${this.address} failed: ${err.message}`), false);
      },
    );
  }

  /** A frame for this call from the other sidecar. */
  onFrame(type: FrameType, payload: Buffer): void {
    switch (type) {
      case FrameType.Head:
        if (this.#answered) return this.#protocolError('a second head');
        this.#answered = true;
        return this.#resolve({ head: decodeHead(payload), body: this.#reply, trailer: this.#ended });
      case FrameType.Message:
        if (!this.#answered) return this.#protocolError('a message before the head');
        return this.#reply.deliver(payload);
      case FrameType.Trailer:
        this.#trailer = decodeHead(payload);
        return;
      case FrameType.End:
        if (!this.#answered) return this.#fail(new RuntimeError('ERR_DIRECT_INVOKE', `sidecar ${this.address} ended the call without an answer`), true);
        this.#reply.push(null);
        return this.#finish(true);
      case FrameType.Error:
        return this.#fail(fromCarried(payload.toString()), true);
      case FrameType.Reset:
        return this.#fail(this.#refusal(payload), false);
      case FrameType.Window:
        return this.#sender.credit(payload.readUInt32BE(0));
      default:
        return this.#protocolError(`a frame of type ${type}`);
    }
  }

  /**
   * The connection is gone: a call not finished fails (it was sent: something may have run there). A call aborted
   * by its caller finished then, and is not here any more.
   */
  lost(err: Error): void {
    this.#fail(new RuntimeError('ERR_DIRECT_INVOKE', `the call to sidecar ${this.address} failed: ${err.message}`), false);
  }

  /** The other sidecar is stopping and never ran this call (it said so, or its GoAway's last id is below ours). */
  unrun(): void {
    this.#fail(this.#unrunError(), false);
  }

  #refusal(payload: Buffer): Error {
    if (!payload.equals(REFUSED)) return new RuntimeError('ERR_DIRECT_INVOKE', `sidecar ${this.address} reset the call`);
    return this.#unrunError();
  }

  /** It may be made elsewhere, if none of its body was read yet (a body is read only once). */
  #unrunError(): Error {
    if (this.#sender.pumping) return new RuntimeError('ERR_DIRECT_INVOKE', `sidecar ${this.address} is stopping and refused the call`);
    return new StreamUnreachableError(this.address, 'it is stopping');
  }

  #protocolError(what: string): void {
    this.#cancel();
    this.#fail(new RuntimeError('ERR_DIRECT_INVOKE', `sidecar ${this.address} sent ${what}`), false);
  }

  readonly #aborted = (): void => {
    this.#cancel();
    this.#fail(abortReason(this.signal!), false);
  };

  /** Tells the other sidecar the call is given up, unless it is over already. */
  #cancel(): void {
    if (this.#finished) return;
    this.#sentEnd = true;
    this.connection.send(FrameType.Reset, this.id, NOTHING);
  }

  #sendEnd(): void {
    if (this.#sentEnd || this.#finished) return;
    this.#sentEnd = true;
    this.connection.send(FrameType.End, this.id, NOTHING);
  }

  #fail(err: Error, theyEnded: boolean): void {
    if (this.#finished) return;
    const answered = this.#answered;
    this.#answered = true;
    this.#finish(theyEnded);
    if (answered) this.#reply.destroy(err);
    else this.#reject(err);
  }

  /**
   * Nothing more will come for this call. When the other side ended it first (`theyEnded`: an End or an Error
   * while this side's body was still going), the rest of the body is read and dropped and a Reset frees the call
   * there: the caller's own connection stays usable and the other sidecar holds nothing for it.
   */
  #finish(theyEnded: boolean): void {
    this.#finished = true;
    this.signal?.removeEventListener('abort', this.#aborted);
    if (theyEnded && !this.#sentEnd) this.connection.send(FrameType.Reset, this.id, NOTHING);
    this.#sender.stop('drain');
    this.done(this.id);
  }
}
