/**
 * Requests from svcd to the app on its port (pub/sub deliveries, binding events, actor calls): node:http with a
 * keep-alive agent. Per request it costs a fraction of what `fetch` costs (no WHATWG streams and no per-request
 * abort plumbing), which matters on the delivery path where every message is one request. The answer's body is
 * read up to `maxBodyBytes` (`--max-request-size`, as Dapr bounds it): the app is not trusted with svcd's memory.
 */
import http from 'node:http';
import { tracedHttpCall } from '../tracing/client-spans.js';

export interface AppResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

export class AppTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the app did not answer within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

export class AppAnswerTooLargeError extends Error {
  constructor(readonly maxBodyBytes: number) {
    super(`the app's answer is larger than --max-request-size (${maxBodyBytes} bytes): not read`);
    this.name = 'AppAnswerTooLargeError';
  }
}

let agent: http.Agent | undefined;

/**
 * Sockets to the app, kept open between requests; as many as requests in flight (shared by every HTTP call to the
 * app). Made on first use, not when this module loads: a V8 startup snapshot of svcd (scripts/make-snapshot.cjs)
 * holds every module's top level, and Node cannot snapshot its `http` module.
 */
export function appAgent(): http.Agent {
  return (agent ??= new http.Agent({ keepAlive: true, keepAliveMsecs: 10_000, scheduling: 'lifo' }));
}

export interface AppRequestOptions {
  readonly method: string;
  readonly body?: Buffer | string;
  readonly headers?: Record<string, string>;
  readonly timeoutMs: number;
  /** The largest answer body read; a larger one fails the request with AppAnswerTooLargeError. */
  readonly maxBodyBytes: number;
  /** Cancels the request (svcd stopping): it fails with an AbortError. */
  readonly signal?: AbortSignal;
  /** False for svcd's own probes (health, subscriptions, bindings): no span, no `traceparent`. */
  readonly traced?: boolean;
}

/** One request to the app; in a CLIENT span carrying its `traceparent` when svcd traces. */
export function appRequest(url: string, opts: AppRequestOptions): Promise<AppResponse> {
  if (opts.traced === false) return send(url, opts);
  return tracedHttpCall(opts.method, () => new URL(url), opts.headers ?? {}, (headers) => send(url, { ...opts, headers }), (res) => res.status);
}

function send(url: string, opts: AppRequestOptions): Promise<AppResponse> {
  return new Promise<AppResponse>((resolve, reject) => {
    const headers: Record<string, string | number> = { ...opts.headers };
    if (opts.body !== undefined) headers['content-length'] = Buffer.byteLength(opts.body);
    const req = http.request(url, { method: opts.method, headers, agent: appAgent(), timeout: opts.timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) }, (res) => {
      // An app answering without end (or just far too much) would otherwise grow svcd until the deliveryTimeout:
      // 2 GiB for one delivery was measured. The connection is dropped, not drained.
      const tooLarge = () => {
        const err = new AppAnswerTooLargeError(opts.maxBodyBytes);
        reject(err); // the response has begun: the request's own 'error' may not come
        req.destroy(err);
      };
      if (Number(res.headers['content-length'] ?? 0) > opts.maxBodyBytes) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > opts.maxBodyBytes) return tooLarge();
        chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    // `timeout` is idle time on the socket; the answer as a whole must come within timeoutMs too.
    const deadline = setTimeout(() => req.destroy(new AppTimeoutError(opts.timeoutMs)), opts.timeoutMs);
    req.on('timeout', () => req.destroy(new AppTimeoutError(opts.timeoutMs)));
    req.on('error', reject);
    req.on('close', () => clearTimeout(deadline));
    req.end(opts.body);
  });
}
