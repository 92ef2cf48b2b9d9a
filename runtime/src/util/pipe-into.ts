import type { Readable, Writable } from 'node:stream';

/**
 * `source.pipe(target)`, and a failure on either side destroys the other. Not `stream.pipeline`: it makes an
 * AbortController per call and aborts it when done, building a DOMException each time — a fifth of a sidecar's CPU
 * on a small service invocation (docs/performance.md). `onError` hears the first failure.
 */
export function pipeInto(source: Readable, target: Writable, onError: (err: Error) => void = () => undefined): void {
  let failed = false;
  const fail = (err: Error) => {
    if (failed) return;
    failed = true;
    onError(err);
    source.destroy(err);
    target.destroy(err);
  };
  source.once('error', fail);
  target.once('error', fail);
  source.pipe(target);
}
