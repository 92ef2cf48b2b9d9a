/**
 * One gRPC runtime API method: the request as decoded (`__Output` types), the call for its metadata, the response
 * as a plain object. `unary` adds the token check, the answer to a request that did not decode and the error mapping
 * every method shares.
 */
import type * as grpc from '@grpc/grpc-js';
import { authorized, serviceError, UNAUTHENTICATED } from '../call-guard.js';
import { malformedRequestError } from '../malformed-request.js';

export type Handler<Req = never, Res = unknown> = (req: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>;

/** The handlers of a group of methods, by method name. */
export type HandlerGroup = Record<string, Handler<never, unknown>>;

export function unary<Req, Res>(handler: Handler<Req, Res>, apiToken: string | undefined): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    if (!authorized(call, apiToken)) {
      callback(UNAUTHENTICATED);
      return;
    }
    const malformed = malformedRequestError(call.request);
    if (malformed) {
      callback(serviceError(malformed));
      return;
    }
    // A handler that throws before its first await (SetMetadata's checks) answers as one whose promise rejects:
    // grpc-js answers a throw out of a method UNKNOWN "Unknown error", without the error's code or message.
    new Promise<Res>((resolve) => resolve(handler(call.request, call))).then(
      (res) => callback(null, res),
      (err: unknown) => callback(serviceError(err)),
    );
  };
}

/** The first value of a call's metadata entry, as text. */
export function metadataValue(call: { metadata: grpc.Metadata }, name: string): string | undefined {
  const v = call.metadata.get(name)[0];
  return v === undefined ? undefined : v.toString();
}
