import type * as grpc from '@grpc/grpc-js';

/**
 * Streaming calls between sidecars on the internal port (service invocation): `svc.internal.v1.Stream/<method>`,
 * bidirectional. Each side's first message is its head (JSON); every further message is raw body bytes, one chunk
 * of the body each (object-mode streams on both sides, so a proxied gRPC message crosses whole). The caller's
 * half-close ends the request body, the callee's OK status ends the answer, with the answer's trailer (JSON, in
 * STREAM_TRAILER_METADATA) when it has one; a failure after the answer's head began ends the call with an error
 * status, so the receiver sees a cut body, never a short one passed as whole.
 */
export const STREAM_SERVICE = 'svc.internal.v1.Stream';
/**
 * Trailing metadata of an OK status: what the answer ends with, after its body (a proxied call's own status).
 * Binary: JSON text in a plain value would have to be printable ASCII.
 */
export const STREAM_TRAILER_METADATA = 'svc-stream-trailer-bin';
/** The shared invocation secret (standalone); compared in constant time. */
export const INVOKE_TOKEN_METADATA = 'svc-invoke-token';

const identity = (b: Buffer) => b;

export function streamMethodPath(method: string): string {
  return `/${STREAM_SERVICE}/${method}`;
}

export function streamServiceDefinition(methods: readonly string[]): grpc.ServiceDefinition {
  return Object.fromEntries(
    methods.map((m) => [
      m,
      { path: streamMethodPath(m), requestStream: true, responseStream: true, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity },
    ]),
  );
}

export function encodeHead(head: unknown): Buffer {
  return Buffer.from(JSON.stringify(head));
}

export function decodeHead(bytes: Buffer): unknown {
  return JSON.parse(bytes.toString('utf8'));
}
