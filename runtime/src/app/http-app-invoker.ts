import http from 'node:http';
import { RuntimeError } from '../errors/runtime-error.js';
import { abortReason } from '../util/abort-reason.js';
import { pipeInto } from '../util/pipe-into.js';
import { tracedHttpCall } from '../tracing/client-spans.js';
import { appAgent } from './app-http.js';
import type { AppAnswer, AppCall, AppInvoker, Headers } from './app-invocation.js';

/**
 * Invocations of an HTTP app (`--app-protocol http`): the request as it came (verb, path, query, headers, body
 * streamed in), the answer as the app gave it (status, headers, body streamed out). Nothing is buffered.
 */
export class HttpAppInvoker implements AppInvoker {
  constructor(private readonly port: number) {}

  /** In a CLIENT span when svcd traces: the app gets that span's `traceparent`, not the caller's. */
  invoke(call: AppCall, signal: AbortSignal): Promise<AppAnswer> {
    const path = call.query === '' ? call.path : `${call.path}?${call.query}`;
    const url = () => new URL(`http://127.0.0.1:${this.port}${path.startsWith('/') ? path : `/${path}`}`);
    return tracedHttpCall(call.verb, url, call.headers, (headers) => this.#send(call, path, headers, signal), (answer) => answer.status);
  }

  #send(call: AppCall, path: string, headers: Headers, signal: AbortSignal): Promise<AppAnswer> {
    return new Promise<AppAnswer>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: this.port, method: call.verb, path, headers, agent: appAgent() }, (res) => {
        resolve({ status: res.statusCode ?? 500, headers: res.headers as Headers, body: res });
      });
      // Not http.request's `signal`: it watches the request with end-of-stream listeners, ~17 µs a call.
      const cancel = () => req.destroy();
      signal.addEventListener('abort', cancel, { once: true });
      req.once('close', () => signal.removeEventListener('abort', cancel));
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (signal.aborted) reject(abortReason(signal));
        else reject(new RuntimeError('ERR_DIRECT_INVOKE', `the app on port ${this.port} could not be called: ${err.code ?? err.message}`, { cause: err }));
      });
      if (call.body) pipeInto(call.body, req);
      else req.end();
    });
  }
}
