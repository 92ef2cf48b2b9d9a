import * as grpc from '@grpc/grpc-js';
import { GrpcError, plainError } from './grpc-errors.js';

/** The metadata key svcd (and daprd) put on every call: the Component's metadata.name. */
export const INSTANCE_METADATA_KEY = 'x-component-instance';

/**
 * One socket serves many component instances (one per Component spec); each keeps its own state. Instances exist
 * from their Init on: a call for an instance that was never initialised (e.g. after this process restarted and the
 * runtime has not sent Init again yet) is refused, instead of silently serving an empty, unconfigured store.
 */
export class Instances<T> {
  readonly #byName = new Map<string, T>();

  constructor(private readonly kind: string) {}

  static nameOf(call: { metadata: grpc.Metadata }): string {
    const v = call.metadata.get(INSTANCE_METADATA_KEY)[0];
    return typeof v === 'string' ? v : '';
  }

  init(call: { metadata: grpc.Metadata }, make: () => T): void {
    this.#byName.set(Instances.nameOf(call), make());
  }

  /** The instance a call is for; throws a gRPC error when it was not initialised. */
  of(call: { metadata: grpc.Metadata }): T {
    const name = Instances.nameOf(call);
    const found = this.#byName.get(name);
    if (!found) throw plainError(grpc.status.FAILED_PRECONDITION, `${this.kind} instance '${name}' is not initialised: call Init first`);
    return found;
  }
}

/** Runs a handler body and answers with its result or its (gRPC-shaped) error. */
export function unary<Req, Res>(body: (call: grpc.ServerUnaryCall<Req, Res>) => Res): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    try {
      callback(null, body(call));
    } catch (err) {
      callback(err instanceof GrpcError ? err : new GrpcError(grpc.status.INTERNAL, String((err as Error).message ?? err)));
    }
  };
}
