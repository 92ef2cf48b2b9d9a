/**
 * A handler for the methods no service on a grpc-js server registered (gRPC proxying: calls for the app behind
 * another sidecar). grpc-go has `UnknownServiceHandler`; grpc-js has no public equivalent (grpc/grpc-node#1572):
 * it answers UNIMPLEMENTED before any interceptor runs. Its one lookup of a call's handler, the private
 * `_retrieveHandler(path)`, returns null for an unknown path; it is wrapped here, on one server instance (never the
 * prototype), to return a bidirectional handler instead, with messages as raw bytes. Nothing else of grpc-js's
 * internals is touched. @grpc/grpc-js is pinned by package-lock; runtime/test/util/grpc-unknown-methods.test.ts
 * fails if an upgrade changes this lookup, and `serveUnknownMethods` refuses to start without it.
 */
import type * as grpc from '@grpc/grpc-js';

/** What grpc-js's server keeps for one method (its `handlers` map's values). */
interface RegisteredHandler {
  func: grpc.handleBidiStreamingCall<Buffer, Buffer>;
  serialize: (value: Buffer) => Buffer;
  deserialize: (bytes: Buffer) => Buffer;
  type: 'bidi';
  path: string;
}

interface HandlerLookup {
  _retrieveHandler?: (path: string) => unknown;
}

const asIs = (bytes: Buffer): Buffer => bytes;

/**
 * Calls to methods `server` does not serve go to `handle` (the call's `getPath()` names the method). A unary or
 * streaming call alike arrives as a bidirectional stream: on the wire, every gRPC call is one.
 */
export function serveUnknownMethods(server: grpc.Server, handle: grpc.handleBidiStreamingCall<Buffer, Buffer>): void {
  const lookup = (server as unknown as HandlerLookup)._retrieveHandler;
  if (typeof lookup !== 'function') throw new Error('this @grpc/grpc-js has no Server._retrieveHandler: gRPC proxying cannot take unknown methods (see util/grpc-unknown-methods.ts)');
  (server as unknown as HandlerLookup)._retrieveHandler = function (this: grpc.Server, path: string): unknown {
    const found = lookup.call(this, path);
    if (found !== null && found !== undefined) return found;
    const fallback: RegisteredHandler = { func: handle, serialize: asIs, deserialize: asIs, type: 'bidi', path };
    return fallback;
  };
}
