import * as grpc from '@grpc/grpc-js';
import { ensureError, isRuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { carriedStatus } from './carried-error.js';
import type { InternalServices } from './internal-server.js';
import { decodePeerBody, encodePeerBody } from './peer-codec.js';
import { PEER_TOKEN_METADATA, peerServiceDefinition } from './peer-service.js';
import { secretMatches } from '../config/api-token.js';

export type PeerHandler = (body: unknown, signal: AbortSignal) => Promise<unknown>;

export interface PeerServiceOptions {
  /** The app's internal token; every call must carry it (undefined refuses every call). */
  readonly token: () => string | undefined;
  readonly handlers: Readonly<Record<string, PeerHandler>>;
  readonly log: Logger;
}

/**
 * The service of the internal port other replicas of this app route actor and workflow calls to. It authenticates
 * every call with the app's token before anything runs, and sends a `RuntimeError` back whole (code, message,
 * statuses) so the calling replica answers its client exactly as this one would.
 */
export function addPeerService(server: InternalServices, o: PeerServiceOptions): void {
  const authorized = (metadata: grpc.Metadata): boolean => {
    const expected = o.token();
    if (!expected) return false;
    return metadata.get(PEER_TOKEN_METADATA).some((v) => secretMatches(expected, v.toString()));
  };
  const unary = (method: string, handler: PeerHandler): grpc.handleUnaryCall<Buffer, Buffer> => {
    return (call, callback) => {
      if (!authorized(call.metadata)) {
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
            callback(carriedStatus(err));
            return;
          }
          const message = ensureError(err).message;
          o.log.warn({ method, err: message }, 'internal call failed');
          callback({ code: grpc.status.INTERNAL, details: message });
        },
      );
    };
  };
  const methods = Object.keys(o.handlers);
  server.addService(peerServiceDefinition(methods), Object.fromEntries(methods.map((m) => [m, unary(m, o.handlers[m]!)])));
}
