/**
 * Streaming calls between sidecars on the internal port (service invocation): `POST /svc.internal.v1.Stream/<method>`
 * over HTTP/1.1 on a kept-alive connection, both bodies cut into frames (stream-frames.ts). Each side's first frame
 * is its head (JSON); every further Message frame is one chunk of the body, so a proxied gRPC message crosses whole.
 * The request's end ends the request body; the answer's end ends its body, after a Trailer frame when it has one.
 * A failure after the answer's head began is an Error frame, or a cut connection: the receiver sees a cut body,
 * never a short one passed as whole.
 *
 * Not gRPC, though the internal port also serves gRPC (replica calls): a gRPC stream per call cost each sidecar
 * 2–3 × the CPU of an HTTP/1.1 exchange (HTTP/2 stream set-up, metadata, grpc-js's call machinery). The port tells
 * them apart by the first bytes of a connection (internal-server.ts).
 */
export const STREAM_SERVICE = 'svc.internal.v1.Stream';
/**
 * A calling sidecar closes an idle connection after this; the called one keeps it twice as long, so it is never
 * the one to close a connection the caller is about to reuse.
 */
export const IDLE_CONNECTION_MS = 60_000;

/** The shared invocation secret (standalone), a request header; compared in constant time. */
export const INVOKE_TOKEN_METADATA = 'svc-invoke-token';

export function streamMethodPath(method: string): string {
  return `/${STREAM_SERVICE}/${method}`;
}

export function encodeHead(head: unknown): Buffer {
  return Buffer.from(JSON.stringify(head));
}

export function decodeHead(bytes: Buffer): unknown {
  return JSON.parse(bytes.toString('utf8'));
}
