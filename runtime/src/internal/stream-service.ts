import type * as grpc from '@grpc/grpc-js';

/**
 * Streaming calls between sidecars on the internal port (service invocation): `svc.internal.v1.Stream/<method>`,
 * bidirectional. Each side's first message is its head (JSON); every further message is raw body bytes. The
 * caller's half-close ends the request body, the callee's OK status ends the answer; a failure after the answer's
 * head began ends the call with an error status, so the receiver sees a cut body, never a short one passed as whole.
 */
export const STREAM_SERVICE = 'svc.internal.v1.Stream';
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
