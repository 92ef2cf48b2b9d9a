import type Router from '@koa/router';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RuntimeError, ensureError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import { fastPath, send, type Answer, type FastPathOptions, type FastRoute } from './fast-routes.js';
import type { RequestObserver } from './request-metrics.js';
import { API_TOKEN_NAMES, secretMatches } from '../../config/api-token.js';
import { errorOnServerSpan, routeServerSpan, tracedHttpApi } from './server-spans.js';

export interface HttpRouteGroup {
  /** Health routes are the only ones served without the API token. */
  readonly public?: boolean;
  mount(router: Router): void;
  /**
   * Routes of this group also answered before koa in their plain case (fast-routes.ts); `mount` mounts them too.
   * The fast path asks for the API token, but not on a public group's routes.
   */
  readonly fast?: readonly FastRoute[];
}

/**
 * Answers one request of the HTTP API. `prepare` makes the koa application now, so that the first request the fast
 * paths leave does not wait for it (svcd calls it once ready).
 */
export type HttpApiHandler = ((req: IncomingMessage, res: ServerResponse) => void) & { readonly prepare: () => void };

export interface HttpAppOptions {
  readonly apiToken: string | undefined;
  readonly log: Logger;
  readonly groups: readonly HttpRouteGroup[];
  /** Told of every answered request (metrics). */
  readonly observe?: RequestObserver;
  /**
   * Handlers that look at every request first and take those that are theirs (service invocation: any path with
   * a `dapr-app-id` header), with the fast path's token check, error answers and metrics.
   */
  readonly takers?: readonly ((o: FastPathOptions) => RequestTaker)[];
}

/** Answers a request and says true, or says false and leaves it alone. */
export type RequestTaker = (req: IncomingMessage, res: ServerResponse) => boolean;

/** The token a request carries: the first of its token headers that is not empty. */
function tokenOf(req: IncomingMessage): string | undefined {
  for (const name of API_TOKEN_NAMES) {
    const value = req.headers[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** The answer to a failed request, logged: a RuntimeError as it says, anything else 500 `ERROR`. */
function failedAnswer(log: Logger, thrown: unknown, method: string, path: string): Answer {
  const err = thrown instanceof RuntimeError ? thrown : new RuntimeError('ERROR', ensureError(thrown).message, { cause: thrown });
  errorOnServerSpan(err.code);
  if (err.httpStatus >= 500) log.error({ method, path, code: err.code, err: err.message }, 'API request failed');
  else log.debug({ method, path, code: err.code, err: err.message }, 'API request rejected');
  return { status: err.httpStatus, body: JSON.stringify(err.toBody()) };
}

/**
 * The HTTP API: the groups' fast routes in their plain case (fast-routes.ts), everything else through koa
 * (koa-app.ts), made on the first request that needs it or by `prepare`. The health probe is a fast route, so svcd
 * turns healthy without loading koa.
 */
export function createHttpApp(opts: HttpAppOptions): HttpApiHandler {
  const metrics = opts.observe;
  // Every answered request also names its server span after the route that took it.
  const observe: RequestObserver = (method, route, status, seconds) => {
    routeServerSpan(method, route);
    metrics?.(method, route, status, seconds);
  };
  const token = opts.apiToken;
  const pathOptions: Required<FastPathOptions> = {
    authorized: (req) => token === undefined || secretMatches(token, tokenOf(req)),
    failed: (err, method, path) => failedAnswer(opts.log, err, method, path),
    observe,
  };
  const fastRoutes = (publicOnes: boolean) => opts.groups.flatMap((g) => ((g.public === true) === publicOnes ? (g.fast ?? []) : []));
  // The state routes first: they are the hot ones.
  const takers = [
    ...(opts.takers ?? []).map((t) => t(pathOptions)),
    fastPath(fastRoutes(false), pathOptions),
    fastPath(fastRoutes(true), { ...pathOptions, authorized: () => true }),
  ];
  let koa: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  let loading: Promise<NonNullable<typeof koa>> | undefined;
  const loadKoa = () => (loading ??= import('./koa-app.js').then((m) => (koa = m.createKoaApp(opts.groups, pathOptions).callback())));
  const handler = tracedHttpApi((req, res) => {
    if (takers.some((take) => take(req, res))) return;
    if (koa !== undefined) void koa(req, res);
    else loadKoa().then((serve) => serve(req, res), (err: unknown) => send(res, pathOptions.failed(err, req.method ?? '', req.url ?? '')));
  });
  return Object.assign(handler, { prepare: () => void loadKoa() });
}
