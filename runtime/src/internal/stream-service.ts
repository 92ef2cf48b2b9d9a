/**
 * Streaming calls between sidecars on the internal port (service invocation). A caller keeps one connection to each
 * sidecar it calls, opened with STREAM_PREFACE; every call is a stream of frames on it (stream-frames.ts), told
 * apart by its id. A call opens with an Open frame (method, credentials, head) and sends its body as Message frames,
 * then End; the answer is a Head frame, Message frames, a Trailer frame when it has one, then End. A failure is an
 * Error frame, before the head or after it: the receiver sees a cut body, never a short one passed as whole. Each
 * body is sent within a window the receiver grants as it reads (Window frames), so a slow reader slows its own
 * call only; the writes of one turn of the event loop leave in one system call, whichever calls made them.
 *
 * Not gRPC, though the internal port also serves gRPC (replica calls): a gRPC stream per call cost each sidecar
 * 2–3 × the CPU of an HTTP/1.1 exchange (HTTP/2 stream set-up, metadata, grpc-js's call machinery), and an
 * HTTP/1.1 exchange per call made a connection per call in flight and a system call per message per call. The
 * port tells them apart by the first bytes of a connection (internal-server.ts).
 */
/**
 * A calling sidecar closes an idle connection after this; the called one keeps it twice as long, so it is never
 * the one to close a connection the caller is about to reuse.
 */
export const IDLE_CONNECTION_MS = 60_000;

/** The shared invocation secret (standalone), a request header; compared in constant time. */
export const INVOKE_TOKEN_METADATA = 'svc-invoke-token';

export function encodeHead(head: unknown): Buffer {
  return Buffer.from(JSON.stringify(head));
}

export function decodeHead(bytes: Buffer): unknown {
  return JSON.parse(bytes.toString('utf8'));
}
