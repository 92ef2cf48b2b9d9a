/**
 * Requests from svcd to the app on its port (pub/sub deliveries, binding events, actor calls): node:http with a
 * keep-alive agent. Per request it costs a fraction of what `fetch` costs (no WHATWG streams and no per-request
 * abort plumbing), which matters on the delivery path where every message is one request.
 */
import http from 'node:http';

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

/** Sockets to the app, kept open between requests; as many as requests in flight. */
const agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 10_000, scheduling: 'lifo' });

export function appRequest(url: string, opts: { method: string; body?: Buffer | string; headers?: Record<string, string>; timeoutMs: number }): Promise<AppResponse> {
  return new Promise<AppResponse>((resolve, reject) => {
    const headers: Record<string, string | number> = { ...opts.headers };
    if (opts.body !== undefined) headers['content-length'] = Buffer.byteLength(opts.body);
    const req = http.request(url, { method: opts.method, headers, agent, timeout: opts.timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
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
