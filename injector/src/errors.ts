/**
 * The injector's error catalogue: each code with its HTTP status. Wire body `{"errorCode","message"}` as in svcd,
 * shaped as a Kubernetes `Status` as well (see `toBody`).
 */
export const INJECTOR_ERROR_CODES = {
  ERR_MALFORMED_REQUEST: 400,
  ERR_UNAUTHORIZED: 401,
  ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  ERR_BODY_TOO_LARGE: 413,
  ERR_NOT_FOUND: 404,
  ERR_METHOD_NOT_ALLOWED: 405,
  ERR_CONFIG_INVALID: 500,
  ERR_KUBERNETES_API: 500,
  ERR_TLS: 500,
  ERROR: 500,
} as const;

export type InjectorErrorCode = keyof typeof INJECTOR_ERROR_CODES;

export class InjectorError extends Error {
  override readonly name = 'InjectorError';
  readonly httpStatus: number;

  constructor(
    readonly code: InjectorErrorCode,
    message: string,
    opts: { cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.httpStatus = INJECTOR_ERROR_CODES[code];
  }

  /**
   * `errorCode` and `message`, in a Kubernetes `Status`: the API server's webhook client reads a failed answer as
   * a Status, and puts its message in the error it reports (the pod's creator sees it, a ReplicaSet's events
   * show it). Any other body becomes `an error on the server ("unknown")`, which says nothing.
   */
  toBody(): { errorCode: string; message: string; kind: 'Status'; apiVersion: 'v1'; status: 'Failure'; code: number } {
    return { errorCode: this.code, message: this.message, kind: 'Status', apiVersion: 'v1', status: 'Failure', code: this.httpStatus };
  }
}

export function ensureError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new Error(typeof err === 'string' ? err : JSON.stringify(err));
}
