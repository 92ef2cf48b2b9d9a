import Koa from 'koa';
import Router from '@koa/router';
import { timingSafeEqual } from 'node:crypto';
import { RuntimeError, ensureError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import type { RequestObserver } from './request-metrics.js';

export interface HttpRouteGroup {
  /** Health routes are the only ones served without the API token. */
  readonly public?: boolean;
  mount(router: Router): void;
}

export interface HttpAppOptions {
  readonly apiToken: string | undefined;
  readonly log: Logger;
  readonly groups: readonly HttpRouteGroup[];
  /** Told of every answered request (metrics). */
  readonly observe?: RequestObserver;
}

const TOKEN_HEADERS = ['svc-api-token', 'dapr-api-token'];

function tokenMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Builds the Koa app: one error shape for every failure, token check on non-public routes, JSON 404/405. */
export function createHttpApp(opts: HttpAppOptions): Koa {
  const app = new Koa();
  app.silent = true;

  const observe = opts.observe;
  if (observe) {
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
  }

  app.use(async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new RuntimeError('ERR_NOT_FOUND', `no API route for ${ctx.method} ${ctx.path}`);
      }
    } catch (thrown) {
      const err = thrown instanceof RuntimeError ? thrown : new RuntimeError('ERROR', ensureError(thrown).message, { cause: thrown });
      if (err.httpStatus >= 500) opts.log.error({ method: ctx.method, path: ctx.path, code: err.code, err: err.message }, 'API request failed');
      else opts.log.debug({ method: ctx.method, path: ctx.path, code: err.code, err: err.message }, 'API request rejected');
      ctx.status = err.httpStatus;
      ctx.type = 'application/json';
      ctx.body = err.toBody();
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
      const given = TOKEN_HEADERS.map((h) => ctx.get(h)).find((v) => v !== '');
      if (!tokenMatches(token, given)) throw new RuntimeError('ERR_UNAUTHORIZED', 'authentication failed: missing or invalid svc-api-token header');
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
