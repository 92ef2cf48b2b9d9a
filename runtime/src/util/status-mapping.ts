/**
 * The HTTP status that stands for a gRPC status code and back, as gRPC gateways (and the reference system's service
 * invocation) map them: an HTTP caller of a gRPC app, or a gRPC caller of an HTTP app, reads the same outcome.
 */
const HTTP_OF_GRPC: readonly number[] = [200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401];

export function httpStatusOfGrpc(code: number): number {
  return HTTP_OF_GRPC[code] ?? 500;
}

export function grpcStatusOfHttp(status: number): number {
  if (status >= 200 && status < 300) return 0;
  switch (status) {
    case 400:
      return 3; // INVALID_ARGUMENT
    case 401:
      return 16; // UNAUTHENTICATED
    case 403:
      return 7; // PERMISSION_DENIED
    case 404:
      return 5; // NOT_FOUND
    case 409:
      return 10; // ABORTED
    case 429:
      return 8; // RESOURCE_EXHAUSTED
    case 499:
      return 1; // CANCELLED
    case 501:
      return 12; // UNIMPLEMENTED
    case 503:
      return 14; // UNAVAILABLE
    case 504:
      return 4; // DEADLINE_EXCEEDED
    default:
      return 2; // UNKNOWN
  }
}
