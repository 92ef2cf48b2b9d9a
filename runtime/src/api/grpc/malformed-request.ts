/**
 * Requests that do not decode. grpc-js answers a deserializer's throw with INTERNAL "Error deserializing request"
 * (the decoder's complaint only with GRPC_NODE_DEBUG_SEND_ERROR_DETAILS set): the client learns neither that its
 * message was at fault nor what is wrong with it. The runtime services' deserializers hand the failure on instead,
 * as the request, and the method's handler answers it INVALID_ARGUMENT, ERR_MALFORMED_REQUEST, with the complaint
 * (or RESOURCE_EXHAUSTED, ERR_BODY_TOO_LARGE, for one over @svc/proto's MAX_RUNTIME_API_REQUEST_ELEMENTS).
 */
import type * as grpc from '@grpc/grpc-js';
import { TooManyElementsError } from '@svc/proto';
import { ensureError, RuntimeError } from '../../errors/runtime-error.js';

/** What a handler receives instead of a request that did not decode. */
class MalformedRequest {
  constructor(readonly error: RuntimeError) {}
}

/** `definition` with deserializers that return a MalformedRequest instead of throwing. */
export function decodingFailuresAsRequests(definition: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const out: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [name, method] of Object.entries(definition)) {
    const deserialize: (bytes: Buffer) => unknown = method.requestDeserialize;
    out[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return deserialize(bytes);
        } catch (err) {
          if (err instanceof TooManyElementsError) return new MalformedRequest(new RuntimeError('ERR_BODY_TOO_LARGE', `the ${name} request is too large: ${err.message}`));
          // protobufjs's complaint, e.g. "invalid wire type 7 at offset 1", "index out of range: 6 + 1000 > 10".
          return new MalformedRequest(new RuntimeError('ERR_MALFORMED_REQUEST', `the ${name} request is not a valid message: ${ensureError(err).message}`));
        }
      },
    };
  }
  return out;
}

/** The error to answer when `request` did not decode. */
export function malformedRequestError(request: unknown): RuntimeError | undefined {
  return request instanceof MalformedRequest ? request.error : undefined;
}
