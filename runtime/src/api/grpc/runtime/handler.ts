/**
 * One gRPC runtime API method: the request as decoded (`__Output` types), the call for its metadata, the response
 * as a plain object. `unary` (../unary.ts) adds what every method shares.
 */
import type * as grpc from '@grpc/grpc-js';

/** `cancelled()` is the call's cancellation as a signal, made when asked for (see ../unary.ts). */
export type Handler<Req = never, Res = unknown> = (req: Req, call: grpc.ServerUnaryCall<Req, Res>, cancelled: () => AbortSignal) => Promise<Res>;

/** The handlers of a group of methods, by method name. */
export type HandlerGroup = Record<string, Handler<never, unknown>>;

/** The first value of a call's metadata entry, as text. */
export function metadataValue(call: { metadata: grpc.Metadata }, name: string): string | undefined {
  const v = call.metadata.get(name)[0];
  return v === undefined ? undefined : v.toString();
}
