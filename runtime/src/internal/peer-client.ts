import * as grpc from '@grpc/grpc-js';
import { RuntimeError } from '../errors/runtime-error.js';
import { abortReason } from '../util/abort-reason.js';
import { carriedError, neverConnected } from './carried-error.js';
import type { Logger } from '../log/logger.js';
import { decodePeerBody, encodePeerBody } from './peer-codec.js';
import { PEER_TOKEN_METADATA, peerMethodPath } from './peer-service.js';
import { SidecarChannels } from './sidecar-channels.js';

/** The peer could not be reached at all: nothing ran there, so the call may be tried again (elsewhere). */
export class PeerUnreachableError extends RuntimeError {
  constructor(address: string, detail: string) {
    super('ERR_ACTOR_PEER_CALL', `replica ${address} is unreachable: ${detail}`);
  }
}

export interface PeerClientsOptions {
  readonly token: () => string | undefined;
  readonly log: Logger;
  readonly maxMessageBytes?: number;
}

export interface PeerCallOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** Calls to the internal servers of the other replicas; one channel per address, reused. */
export class PeerClients {
  readonly #channels: SidecarChannels;

  constructor(private readonly o: PeerClientsOptions) {
    this.#channels = new SidecarChannels(o.maxMessageBytes);
  }

  call<T>(address: string, method: string, body: unknown, opts: PeerCallOptions = {}): Promise<T> {
    if (opts.signal?.aborted) return Promise.reject(abortReason(opts.signal));
    const client = this.#channels.client(address);
    const metadata = new grpc.Metadata();
    metadata.set(PEER_TOKEN_METADATA, this.o.token() ?? '');
    const callOptions: grpc.CallOptions = opts.timeoutMs !== undefined ? { deadline: Date.now() + opts.timeoutMs } : {};
    return new Promise<T>((resolve, reject) => {
      const call = client.makeUnaryRequest<Buffer, Buffer>(
        peerMethodPath(method),
        (b) => b,
        (b) => b,
        encodePeerBody(body),
        metadata,
        callOptions,
        (err, res) => {
          opts.signal?.removeEventListener('abort', onAbort);
          if (err) reject(opts.signal?.aborted ? abortReason(opts.signal) : toError(address, method, err));
          else {
            try {
              resolve(decodePeerBody(res ?? Buffer.alloc(0)) as T);
            } catch (decodeErr) {
              reject(new RuntimeError('ERR_ACTOR_PEER_CALL', `replica ${address} answered ${method} with a malformed body: ${(decodeErr as Error).message}`));
            }
          }
        },
      );
      const onAbort = () => call.cancel();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Closes the channel to a replica that left. */
  forget(address: string): void {
    this.#channels.forget(address);
  }

  close(): void {
    this.#channels.close();
  }
}

function toError(address: string, method: string, err: grpc.ServiceError): Error {
  const carried = carriedError(err);
  if (carried) return carried;
  if (neverConnected(err)) return new PeerUnreachableError(address, err.details);
  return new RuntimeError('ERR_ACTOR_PEER_CALL', `calling ${method} on replica ${address} failed: ${err.details || err.message}`);
}
