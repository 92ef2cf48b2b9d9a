import Koa from 'koa';
import Router from '@koa/router';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RuntimeError, ensureError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import { unauthenticatedRequest } from '../../errors/catalogue.js';
import { fastPath, type Answer, type FastPathOptions, type FastRoute } from './fast-routes.js';
import type { RequestObserver } from './request-metrics.js';
import { API_TOKEN_NAMES, secretMatches } from '../../config/api-token.js';
import { errorOnServerSpan, routeServerSpan, tracedHttpApi } from './server-spans.js';
import { setJsonType } from './json-answer.js';

export interface HttpRouteGroup {
  /** Health routes are the only ones served without the API token. */
  readonly public?: boolean;
  mount(router: Router): void;
  /**
   * Routes of this group also answered before koa in their plain case (fast-routes.ts); `mount` mounts them too.
   * The fast path asks for the API token, so a public group's fast routes are left to koa.
   */
  readonly fast?: readonly FastRoute[];
}

/** Answers one request of the HTTP API. */
export type HttpApiHandler = (req: IncomingMessage, res: ServerResponse) => void;

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
 * The HTTP API: the groups' fast routes in their plain case (fast-routes.ts), everything else through koa: one
 * error shape for every failure, token check on non-public routes, JSON 404/405.
 */
export function createHttpApp(opts: HttpAppOptions): HttpApiHandler {
  const metrics = opts.observe;
  // Every answered request also names its server span after the route that took it.
  const observe: RequestObserver = (method, route, status, seconds) => {
    routeServerSpan(method, route);
    metrics?.(method, route, status, seconds);
  };
  const koa = createKoaApp(opts, observe).callback();
  const token = opts.apiToken;
  const pathOptions: FastPathOptions = {
    authorized: (req) => token === undefined || secretMatches(token, tokenOf(req)),
    failed: (err, method, path) => failedAnswer(opts.log, err, method, path),
    observe,
  };
  const takers = [...(opts.takers ?? []).map((t) => t(pathOptions)), fastPath(opts.groups.flatMap((g) => (g.public ? [] : (g.fast ?? []))), pathOptions)];
  return tracedHttpApi((req, res) => {
    if (!takers.some((take) => take(req, res))) void koa(req, res);
  });
}

function createKoaApp(opts: HttpAppOptions, observe: RequestObserver): Koa {
  const app = new Koa();
  app.silent = true;

  app.use(async (ctx, next) => {
    const t0 = performance.now();
    try {
      await next();
    } finally {
      // The router's pattern (`/v1.0/state/:store/:key`), so label values stay few; `unmatched` for no route.
      const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      observe(ctx.method, typeof route === 'string' ? route : 'unmatched', ctx.status, (performance.now() - t0) / 1000);
    }
  });

  app.use(async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new RuntimeError('ERR_NOT_FOUND', `no API route for ${ctx.method} ${ctx.path}`);
      }
    } catch (thrown) {
      const answer = failedAnswer(opts.log, thrown, ctx.method, ctx.path);
      ctx.status = answer.status;
      setJsonType(ctx);
      ctx.body = answer.body;
    }
  });

  const publicRouter = new Router();
  const protectedRouter = new Router();
  for (const g of opts.groups) g.mount(g.public ? publicRouter : protectedRouter);

  app.use(publicRouter.routes());
  app.use(publicRouter.allowedMethods({ throw: true, methodNotAllowed, notImplemented: methodNotAllowed }));
  if (opts.apiToken !== undefined) {
    const token = opts.apiToken;
    app.use(async (ctx, next) => {
      if (!secretMatches(token, tokenOf(ctx.req))) throw unauthenticatedRequest();
      await next();
    });
  }
  app.use(protectedRouter.routes());
  app.use(protectedRouter.allowedMethods({ throw: true, methodNotAllowed, notImplemented: methodNotAllowed }));
  return app;
}

/** Also for methods svcd knows nowhere (TRACE, PROPFIND, …): the router would say 501, which is not an API answer. */
function methodNotAllowed(): Error {
  return new RuntimeError('ERR_METHOD_NOT_ALLOWED', 'method not allowed on this route');
}
