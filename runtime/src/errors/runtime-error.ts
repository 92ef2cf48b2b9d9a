import type { status as GrpcStatus } from '@grpc/grpc-js';
import { ERROR_CODES, type ErrorCode } from './codes.js';

export interface RuntimeErrorOptions {
  cause?: unknown;
  /** Overrides the catalogue's HTTP status, e.g. a pluggable component's own `http_code`. */
  httpStatus?: number;
  grpcStatus?: GrpcStatus;
}

/** An error that knows its stable code and how it looks on both transports. */
export class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
  readonly code: ErrorCode;
  readonly httpStatus: number;
  readonly grpcStatus: GrpcStatus;

  constructor(code: ErrorCode, message: string, opts: RuntimeErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = code;
    this.httpStatus = opts.httpStatus ?? ERROR_CODES[code].http;
    this.grpcStatus = opts.grpcStatus ?? ERROR_CODES[code].grpc;
  }

  /** The wire body of every API error: `{"errorCode","message"}`. */
  toBody(): { errorCode: string; message: string } {
    return { errorCode: this.code, message: this.message };
  }
}

export function isRuntimeError(err: unknown, code?: ErrorCode): err is RuntimeError {
  return err instanceof RuntimeError && (code === undefined || err.code === code);
}

/** Normalises anything thrown into an Error, so callers can rely on `.message`. */
export function ensureError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new Error(typeof err === 'string' ? err : JSON.stringify(err));
}
