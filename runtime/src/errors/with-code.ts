import type { ErrorCode } from './codes.js';
import { RuntimeError, ensureError, isRuntimeError } from './runtime-error.js';

/** Runs `work`; a failure that is not already a coded API error gets `code` and `what` (bad input keeps its own). */
export async function withCode<T>(code: ErrorCode, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isRuntimeError(err)) throw err;
    throw new RuntimeError(code, `${what}: ${ensureError(err).message}`, { cause: err });
  }
}
