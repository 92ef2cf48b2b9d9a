import { expect } from 'chai';
import type { ErrorCode } from '../../src/errors/codes.js';
import { isRuntimeError } from '../../src/errors/runtime-error.js';

/** Asserts that `fn` throws synchronously a `RuntimeError` with `code` whose message matches `message`. */
export function expectRuntimeError(fn: () => unknown, code: ErrorCode, message: RegExp): void {
  try {
    fn();
  } catch (err) {
    expect(isRuntimeError(err, code), String(err)).to.equal(true);
    expect((err as Error).message).to.match(message);
    return;
  }
  expect.fail(`expected ${code}`);
}

/** Asserts that `promise` rejects with a `RuntimeError` with `code` whose message matches `message`. */
export async function expectRuntimeRejection(promise: Promise<unknown>, code: ErrorCode, message: RegExp): Promise<void> {
  try {
    await promise;
  } catch (err) {
    expect(isRuntimeError(err, code), String(err)).to.equal(true);
    expect((err as Error).message).to.match(message);
    return;
  }
  expect.fail(`expected ${code}`);
}

/** The common case of the request decoders and key checks: a 400 `ERR_MALFORMED_REQUEST`. */
export function expectMalformed(fn: () => unknown, message: RegExp): void {
  expectRuntimeError(fn, 'ERR_MALFORMED_REQUEST', message);
}
