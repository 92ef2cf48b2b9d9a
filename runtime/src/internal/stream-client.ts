import http from 'node:http';
import type { Readable } from 'node:stream';
import { ensureError, RuntimeError } from '../errors/runtime-error.js';
import { abortReason } from '../util/abort-reason.js';
import { fromCarried } from './carried-error.js';
import { DEFAULT_PEER_MESSAGE_BYTES } from './peer-service.js';
import { FramedBody, FrameType, writeFrame } from './stream-frames.js';
import { decodeHead, encodeHead, IDLE_CONNECTION_MS, streamMethodPath } from './stream-service.js';

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

/** `host:port` or `[v6]:port` as name resolution records it. */
function hostAndPort(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(colon + 1)) };
}

/**
 * Streaming calls to other sidecars' internal ports (stream-service.ts): HTTP/1.1 connections kept alive and
 * reused, one call at a time on each. A call waits for its connection before it reads anything of its body, so a
 * sidecar that cannot be reached fails with StreamUnreachableError with the body still unread: the caller may try
 * another one.
 */
export class StreamClients {
  readonly #agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 10_000, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' });

  call(address: string, method: string, head: unknown, body: Readable | undefined, o: StreamCallOptions): Promise<StreamReply> {
    if (o.signal?.aborted) return Promise.reject(abortReason(o.signal));
    const { host, port } = hostAndPort(address);
    const req = http.request({ agent: this.#agent, host, port, method: 'POST', path: streamMethodPath(method), headers: o.metadata, setHost: false });
    const cancel = () => req.destroy();
    o.signal?.addEventListener('abort', cancel, { once: true });
    req.once('close', () => o.signal?.removeEventListener('abort', cancel));
    let connected = false;
    const send = () => {
      connected = true;
      writeFrame(req, FrameType.Head, encodeHead(head));
      if (!body) return void req.end();
      // A body that fails cancels the call: the other side sees it cut.
      body.once('error', cancel);
      body.on('data', sendChunk);
      req.on('drain', () => body.resume());
      body.once('end', () => req.end());
    };
    const sendChunk = (chunk: Buffer | string) => {
      if (!writeFrame(req, FrameType.Message, typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) body?.pause();
    };
    // An answer that ended before all of the body was sent wants no more of it: the rest is read and dropped (the
    // caller's own connection stays usable) and this connection, midway through a request, is closed.
    const unwanted = () => {
      if (!body || req.writableEnded) return;
      body.off('data', sendChunk);
      body.resume();
      req.destroy();
    };
    req.once('socket', (socket) => {
      if (!socket.connecting) return send();
      const timer = setTimeout(() => req.destroy(new Error(`no connection within ${o.connectTimeoutMs} ms`)), o.connectTimeoutMs);
      req.once('close', () => clearTimeout(timer));
      socket.once('connect', () => {
        clearTimeout(timer);
        send();
      });
    });
    return new Promise<StreamReply>((resolve, reject) => {
      let answered = false;
      req.once('error', (err) => {
        if (!answered) reject(toError(address, err, connected, o.signal));
      });
      req.once('response', (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new RuntimeError('ERR_DIRECT_INVOKE', `sidecar ${address} does not serve ${method} (HTTP ${res.statusCode})`));
        }
        let trailer: unknown;
        const reply: FramedBody = new FramedBody(res, {
          maxBytes: DEFAULT_PEER_MESSAGE_BYTES,
          onDestroy: cancel,
          failure: (err) => toError(address, err, true, o.signal),
          onFrame: (type, payload) => {
            if (type === FrameType.Trailer) trailer = decodeHead(payload);
            else if (type === FrameType.Head && !answered) {
              answered = true;
              const ended = new Promise<unknown>((resolveEnd, rejectEnd) => {
                reply.once('end', () => resolveEnd(trailer));
                reply.once('error', rejectEnd);
              });
              ended.catch(() => undefined);
              resolve({ head: decodeHead(payload), body: reply, trailer: ended });
            } else if (type === FrameType.Error) {
              const err = fromCarried(payload.toString());
              if (answered) reply.destroy(err);
              else reject(err);
              answered = true;
            } else reply.destroy(new RuntimeError('ERR_DIRECT_INVOKE', `sidecar ${address} sent a frame of type ${type} where none belongs`));
          },
        });
        res.once('end', () => {
          unwanted();
          if (!answered) reject(new RuntimeError('ERR_DIRECT_INVOKE', `sidecar ${address} ended the call without an answer`));
        });
        reply.once('error', (err) => {
          if (!answered) reject(err);
        });
      });
    });
  }

  /** Closes the idle connections to a sidecar that went away. */
  forget(address: string): void {
    const name = this.#agent.getName(hostAndPort(address));
    for (const socket of this.#agent.freeSockets[name] ?? []) socket.destroy();
  }

  close(): void {
    this.#agent.destroy();
  }
}

function toError(address: string, err: Error, connected: boolean, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return abortReason(signal);
  if (err instanceof RuntimeError) return err;
  if (!connected) return new StreamUnreachableError(address, ensureError(err).message);
  return new RuntimeError('ERR_DIRECT_INVOKE', `the call to sidecar ${address} failed: ${err.message}`);
}
