import * as grpc from '@grpc/grpc-js';
import { ensureError, isRuntimeError } from '../errors/runtime-error.js';
import { GrpcApiServer } from '../util/grpc-server.js';
import type { Logger } from '../log/logger.js';
import { decodePeerBody, encodePeerBody } from './peer-codec.js';
import { DEFAULT_PEER_MESSAGE_BYTES, PEER_ERROR_METADATA, PEER_TOKEN_METADATA, peerServiceDefinition } from './peer-service.js';
import { secretMatches } from '../config/api-token.js';

export type PeerHandler = (body: unknown, signal: AbortSignal) => Promise<unknown>;

export interface PeerServerOptions {
  /** Address to bind (the one other replicas dial). */
  readonly address: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** The app's internal token; every call must carry it (undefined refuses every call). */
  readonly token: () => string | undefined;
  readonly handlers: Readonly<Record<string, PeerHandler>>;
  readonly log: Logger;
  readonly maxMessageBytes?: number;
}

/**
 * The internal gRPC server other replicas of this app route calls to. It authenticates every call with the app's
 * token before anything runs, and sends a `RuntimeError` back whole (code, message, statuses) so the calling
 * replica answers its client exactly as this one would.
 */
export class PeerServer {
  readonly #server: GrpcApiServer;

  constructor(private readonly o: PeerServerOptions) {
    this.#server = new GrpcApiServer(o.address, o.port, { maxMessageBytes: o.maxMessageBytes ?? DEFAULT_PEER_MESSAGE_BYTES });
    const methods = Object.keys(o.handlers);
    const impl = Object.fromEntries(methods.map((m) => [m, this.#unary(m, o.handlers[m]!)]));
    this.#server.addService(peerServiceDefinition(methods), impl);
  }

  /** Resolves with the bound port. */
  start(): Promise<number> {
    return this.#server.start();
  }

  stop(graceMs: number): Promise<void> {
    return this.#server.stop(graceMs);
  }

  #authorized(metadata: grpc.Metadata): boolean {
    const expected = this.o.token();
    if (!expected) return false;
    return metadata.get(PEER_TOKEN_METADATA).some((v) => secretMatches(expected, v.toString()));
  }

  #unary(method: string, handler: PeerHandler): grpc.handleUnaryCall<Buffer, Buffer> {
    return (call, callback) => {
      if (!this.#authorized(call.metadata)) {
        callback({ code: grpc.status.UNAUTHENTICATED, details: `missing or invalid ${PEER_TOKEN_METADATA}` });
        return;
      }
      const abort = new AbortController();
      call.on('cancelled', () => abort.abort(new Error('the calling replica cancelled the call')));
      let body: unknown;
      try {
        body = decodePeerBody(call.request);
      } catch (err) {
        callback({ code: grpc.status.INVALID_ARGUMENT, details: `malformed body: ${ensureError(err).message}` });
        return;
      }
      handler(body, abort.signal).then(
        (out) => callback(null, encodePeerBody(out)),
        (err: unknown) => {
          if (abort.signal.aborted) return;
          if (isRuntimeError(err)) {
            const trailer = new grpc.Metadata();
            trailer.set(PEER_ERROR_METADATA, JSON.stringify({ code: err.code, message: err.message, httpStatus: err.httpStatus, grpcStatus: err.grpcStatus }));
            callback({ code: err.grpcStatus, details: err.message, metadata: trailer });
            return;
          }
          const message = ensureError(err).message;
          this.o.log.warn({ method, err: message }, 'internal call failed');
          callback({ code: grpc.status.INTERNAL, details: message });
        },
      );
    };
  }
}
