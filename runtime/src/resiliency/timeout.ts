import { RuntimeError } from '../errors/runtime-error.js';
import type { TimeoutPolicy } from './resiliency-spec.js';

/**
 * Runs one attempt with a signal of its own: aborted when the caller's `signal` is, and when `timeout` runs out,
 * in which case the attempt's promise is no longer awaited and the call fails with ERR_RESILIENCY_TIMEOUT (the
 * attempt is expected to stop on its signal; whatever it settles to later is dropped).
 */
export async function runWithTimeout<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  opts: { readonly timeout?: TimeoutPolicy; readonly target: string; readonly signal?: AbortSignal },
): Promise<T> {
  const { timeout, signal } = opts;
  signal?.throwIfAborted();
  const controller = new AbortController();
  const follow = (): void => controller.abort(signal?.reason);
  signal?.addEventListener('abort', follow, { once: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    if (!timeout) return await attempt(controller.signal);
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new RuntimeError('ERR_RESILIENCY_TIMEOUT', `${opts.target} did not answer within its timeout '${timeout.name}' (${timeout.ms}ms)`);
        controller.abort(err);
        reject(err);
      }, timeout.ms);
      // the attempt's own I/O keeps the process alive while it matters; a timer alone must not
      timer.unref();
    });
    return await Promise.race([attempt(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', follow);
  }
}
