import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { ensureError, isRuntimeError, RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { carried } from './carried-error.js';
import type { InternalStreamRoutes } from './internal-server.js';
import { DEFAULT_PEER_MESSAGE_BYTES } from './peer-service.js';
import { FramedBody, FrameType, writeFrame } from './stream-frames.js';
import { decodeHead, encodeHead, streamMethodPath } from './stream-service.js';

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

/** The head frame, the first of the request; rejects when the request ends or breaks off without one. */
function headOf(req: IncomingMessage, body: FramedBody, heads: Promise<Buffer>): Promise<unknown> {
  const missing = new Promise<never>((_, reject) => {
    // A bad frame fails the body before the request's end is seen: its error is the one to give.
    req.once('end', () => reject(body.errored ?? new Error('the call ended before its head')));
    body.once('error', reject);
  });
  return Promise.race([heads, missing]).then(decodeHead);
}

/** One frame per chunk, the body paused while the connection is behind; a cancelled call destroys the body. */
function sendBody(res: ServerResponse, body: Readable, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancel = () => body.destroy();
    signal.addEventListener('abort', cancel, { once: true });
    body.on('data', (chunk: Buffer) => {
      if (!writeFrame(res, FrameType.Message, chunk)) body.pause();
    });
    res.on('drain', () => body.resume());
    body.once('end', resolve);
    body.once('error', reject);
    body.once('close', () => signal.removeEventListener('abort', cancel));
  });
}

/** Writes the answer with back-pressure: its head, its body one frame per chunk, its trailer, then the end. */
async function send(res: ServerResponse, answer: StreamAnswer, signal: AbortSignal): Promise<void> {
  writeFrame(res, FrameType.Head, encodeHead(answer.head));
  if (answer.body) await sendBody(res, answer.body, signal);
  if (answer.trailer) writeFrame(res, FrameType.Trailer, encodeHead(await answer.trailer()));
  res.end();
}

/**
 * Adds streaming methods (`/svc.internal.v1.Stream/<method>`, stream-service.ts) to the internal port. A
 * handler's RuntimeError goes back whole in an Error frame, before the answer's head or after it; anything else is
 * logged and goes back as ERR_DIRECT_INVOKE naming it.
 */
export function addStreamService(server: InternalStreamRoutes, handlers: Readonly<Record<string, StreamHandler>>, log: Logger): void {
  const serve = (method: string, handler: StreamHandler) => (req: IncomingMessage, res: ServerResponse) => {
    res.sendDate = false;
    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort(new Error('the calling sidecar cancelled the call'));
    });
    let sawHead!: (head: Buffer) => void;
    const heads = new Promise<Buffer>((resolve) => (sawHead = resolve));
    const body = new FramedBody(req, {
      maxBytes: DEFAULT_PEER_MESSAGE_BYTES,
      onFrame: (type, payload) => (type === FrameType.Head ? sawHead(payload) : body.destroy(new Error(`a call carries no frame of type ${type}`))),
      // The handler is done with the body: the rest of it goes by unread, the answer unaffected.
      onDestroy: () => req.resume(),
      failure: (err) => err,
    });
    void (async () => {
      try {
        const head = await headOf(req, body, heads);
        await send(res, await handler({ head, body, header: (name) => req.headers[name] as string | undefined, signal: abort.signal }), abort.signal);
      } catch (err) {
        if (abort.signal.aborted) return;
        if (!isRuntimeError(err)) log.warn({ method, err: ensureError(err).message }, 'internal streaming call failed');
        const failure = isRuntimeError(err) ? err : new RuntimeError('ERR_DIRECT_INVOKE', `the target sidecar failed the call: ${ensureError(err).message}`);
        writeFrame(res, FrameType.Error, Buffer.from(carried(failure)));
        res.end();
      } finally {
        // The answer is whole: what is left of the request goes by unread, so the connection serves the next call.
        body.destroy();
      }
    })();
  };
  for (const [method, handler] of Object.entries(handlers)) server.addStreamRoute(streamMethodPath(method), serve(method, handler));
}
