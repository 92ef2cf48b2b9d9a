import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Headers } from '../../app/app-invocation.js';
import { malformedRequest, unauthenticatedRequest } from '../../errors/catalogue.js';
import type { InvocationApi } from '../../invocation/invocation-api.js';
import { pipeInto } from '../../util/pipe-into.js';
import { send, type FastPathOptions } from './fast-routes.js';

const PREFIX = '/v1.0/invoke/';
const ROUTE = '/v1.0/invoke/:id/method/*';
/** The header form: a request on any path with one of these is a call to that app, the path its method. */
const APP_ID_HEADERS = ['dapr-app-id', 'svc-app-id'] as const;

/** Target and method path of an invocation request, or undefined for any other request. */
function invocationOf(req: IncomingMessage, path: string): { target: string; method: string } | undefined {
  for (const name of APP_ID_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string' && value !== '') return { target: value, method: path };
  }
  if (!path.startsWith(PREFIX)) return undefined;
  const rest = path.slice(PREFIX.length);
  const slash = rest.indexOf('/method/');
  if (slash <= 0) throw malformedRequest(`an invocation path is ${PREFIX}<app-id>/method/<method>; got ${path.slice(0, 200)}`);
  return { target: decodeURIComponent(rest.slice(0, slash)), method: rest.slice(slash + '/method'.length) };
}

/** Whether the request carries a body to stream on (a GET without one must not be sent as chunked). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Service invocation over HTTP, answered before koa: `/v1.0/invoke/<app-id>/method/<method>` for every verb, and
 * the `dapr-app-id`/`svc-app-id` header form on any path. Bodies stream both ways (nothing buffered here); the
 * app's status and headers come back as the app gave them. svcd's own errors are the catalogue's JSON answers;
 * an answer that fails after its head went out cuts the connection, so a cut body is never taken for a whole one.
 */
export function invocationPath(api: InvocationApi, opts: FastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    let invocation: { target: string; method: string } | undefined;
    const started = performance.now();
    const done = (status: number) => opts.observe?.(req.method ?? '', ROUTE, status, (performance.now() - started) / 1000);
    try {
      invocation = invocationOf(req, path);
      if (!invocation) return false;
      if (!opts.authorized(req)) throw unauthenticatedRequest();
    } catch (err) {
      const answer = opts.failed(err, req.method ?? '', path);
      send(res, answer);
      done(answer.status);
      return true;
    }
    void forward(api, invocation, req, res, q < 0 ? '' : url.slice(q + 1), opts).then(done);
    return true;
  };
}

async function forward(api: InvocationApi, inv: { target: string; method: string }, req: IncomingMessage, res: ServerResponse, query: string, opts: FastPathOptions): Promise<number> {
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort(new Error('the caller went away'));
  });
  let answer;
  try {
    const call = { verb: req.method ?? 'GET', path: inv.method || '/', query, headers: req.headers as Headers, body: hasBody(req) ? req : undefined };
    answer = await api.invoke(inv.target, call, abort.signal);
    res.writeHead(answer.status, answer.headers);
  } catch (err) {
    answer?.body.destroy();
    if (res.headersSent) return res.statusCode;
    const failed = opts.failed(err, req.method ?? '', req.url ?? '');
    send(res, failed);
    return failed.status;
  }
  const body = answer.body;
  await new Promise<void>((resolve) => {
    res.once('close', resolve);
    pipeInto(body, res);
  });
  return answer.status;
}
