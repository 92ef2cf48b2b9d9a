import Koa from 'koa';
import Router from '@koa/router';
import { RuntimeError } from '../../errors/runtime-error.js';
import { unauthenticatedRequest } from '../../errors/catalogue.js';
import type { HttpRouteGroup } from './app.js';
import type { FastPathOptions } from './fast-routes.js';
import { setJsonType } from './json-answer.js';

/**
 * The koa application serving every request the fast paths leave: one error shape for every failure, the token
 * check on non-public routes, JSON 404/405. Its own module, imported when first needed (app.ts): loading koa and
 * its router and making the routes' patterns into regular expressions was an eighth of what svcd ran after Node's
 * own start (callgrind: 46 of 368 million instructions).
 */
export function createKoaApp(groups: readonly HttpRouteGroup[], o: Required<FastPathOptions>): Koa {
  const app = new Koa();
  app.silent = true;

  app.use(async (ctx, next) => {
    const t0 = performance.now();
    try {
      await next();
    } finally {
      // The router's pattern (`/v1.0/state/:store/:key`), so label values stay few; `unmatched` for no route.
      const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      o.observe(ctx.method, typeof route === 'string' ? route : 'unmatched', ctx.status, (performance.now() - t0) / 1000);
    }
  });

  app.use(async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new RuntimeError('ERR_NOT_FOUND', `no API route for ${ctx.method} ${ctx.path}`);
      }
    } catch (thrown) {
      const answer = o.failed(thrown, ctx.method, ctx.path);
      ctx.status = answer.status;
      setJsonType(ctx);
      ctx.body = answer.body;
    }
  });

  const publicRouter = new Router();
  const protectedRouter = new Router();
  for (const g of groups) g.mount(g.public ? publicRouter : protectedRouter);

  app.use(publicRouter.routes());
  app.use(publicRouter.allowedMethods({ throw: true, methodNotAllowed, notImplemented: methodNotAllowed }));
  app.use(async (ctx, next) => {
    if (!o.authorized(ctx.req)) throw unauthenticatedRequest();
    await next();
  });
  app.use(protectedRouter.routes());
  app.use(protectedRouter.allowedMethods({ throw: true, methodNotAllowed, notImplemented: methodNotAllowed }));
  return app;
}

/** Also for methods svcd knows nowhere (TRACE, PROPFIND, …): the router would say 501, which is not an API answer. */
function methodNotAllowed(): Error {
  return new RuntimeError('ERR_METHOD_NOT_ALLOWED', 'method not allowed on this route');
}
