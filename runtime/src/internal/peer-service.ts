import type * as grpc from '@grpc/grpc-js';

/** gRPC service of the internal port; one unary method per handler, bodies are peer-codec bytes. */
export const PEER_SERVICE = 'svc.internal.v1.Peer';
export const PEER_TOKEN_METADATA = 'svc-internal-token';
export const DEFAULT_PEER_MESSAGE_BYTES = 64 * 1024 * 1024;

const identity = (b: Buffer) => b;

export function peerMethodPath(method: string): string {
  return `/${PEER_SERVICE}/${method}`;
}

export function peerServiceDefinition(methods: readonly string[]): grpc.ServiceDefinition {
  return Object.fromEntries(
    methods.map((m) => [
      m,
      { path: peerMethodPath(m), requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity },
    ]),
  );
}
