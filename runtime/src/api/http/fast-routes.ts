import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a route answers: a status, headers, and a JSON body (none for 204). */
export interface Answer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Buffer | string;
}

/**
 * A route the hot path answers before koa. Its koa route runs the same `answer`, so the two cannot differ: the
 * fast path only skips koa's context, middleware chain and router for the plain case.
 */
export interface FastRoute {
  readonly method: 'GET' | 'POST' | 'PUT';
  /** The router pattern (`/v1.0/state/:store/:key`): what the koa route is mounted on, and the metrics label. */
  readonly pattern: string;
  answer(params: Readonly<Record<string, string>>, req: IncomingMessage): Promise<Answer>;
}

export interface FastPathOptions {
  /** Whether the request carries the API token svcd asks for (true when it asks for none). */
  readonly authorized: (req: IncomingMessage) => boolean;
  /** The answer to a failed request, logged, as koa's error middleware gives it. */
  readonly failed: (err: unknown, method: string, path: string) => Answer;
  readonly observe?: (method: string, route: string, status: number, seconds: number) => void;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Writes an answer as koa would: a JSON body with its length, no body and no type for 204. */
export function send(res: ServerResponse, answer: Answer): void {
  const body = answer.body;
  if (body === undefined) {
    res.writeHead(answer.status, answer.headers);
    res.end();
    return;
  }
  // Not `{ ...answer.headers, … }`: a literal that starts with a spread gets a hidden class per object once optimized
  // (see workflow/history-events.ts), and Node walks these headers on every answer.
  res.writeHead(answer.status, Object.assign({}, answer.headers, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body) }));
  res.end(body);
}

/** A route with its pattern split at `/`: each part a literal, or a parameter named after its `:`. */
type Compiled = { route: FastRoute; parts: { literal?: string; param?: string }[] };

function compile(route: FastRoute): Compiled {
  return { route, parts: route.pattern.split('/').map((p) => (p.startsWith(':') ? { param: p.slice(1) } : { literal: p })) };
}

/** As the router decodes a parameter: percent-decoded, or as sent when that fails. */
function decoded(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The hot routes answered straight from `node:http`: koa's context, its middleware chain and the router cost about
 * a fifth of a one-connection state read's CPU (docs/performance.md). Taken here only when the request is the plain
 * case: no query string (or an empty one), the exact method and path of a fast route, and the API token when svcd
 * asks for one.
 * Anything else (queries, another spelling of the path, a missing token) goes to koa, whose routes answer the same
 * way. Returns the handler, which says whether it took the request.
 */
export function fastPath(routes: readonly FastRoute[], opts: FastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const compiled = routes.map(compile);
  return (req, res) => {
    let url = req.url ?? '';
    const query = url.indexOf('?');
    if (query >= 0) {
      // An empty query is the plain case: the Dapr JS SDK ends every state URL with `?`.
      if (query !== url.length - 1) return false;
      url = url.slice(0, query);
    }
    const segments = url.split('/');
    const match = compiled.find(
      (c) => c.route.method === req.method && c.parts.length === segments.length && c.parts.every((p, i) => (p.param !== undefined ? segments[i] !== '' : p.literal === segments[i])),
    );
    if (!match || !opts.authorized(req)) return false;
    const params: Record<string, string> = {};
    match.parts.forEach((p, i) => {
      if (p.param !== undefined) params[p.param] = decoded(segments[i]!);
    });
    void answerRequest(match.route, params, req, res, url, opts);
    return true;
  };
}

async function answerRequest(route: FastRoute, params: Record<string, string>, req: IncomingMessage, res: ServerResponse, path: string, opts: FastPathOptions): Promise<void> {
  const t0 = performance.now();
  let answer: Answer;
  try {
    answer = await route.answer(params, req);
    // Headers a store or component returned may be unfit for HTTP (a line break in a metadata value): 500, as koa.
    send(res, answer);
  } catch (err) {
    answer = opts.failed(err, route.method, path);
    send(res, answer);
  }
  opts.observe?.(route.method, route.pattern, answer.status, (performance.now() - t0) / 1000);
}
