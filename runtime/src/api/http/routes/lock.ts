import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type { LockApi } from '../../../lock/lock-api.js';
import type { HttpRouteGroup } from '../app.js';
import { readRawBody } from '../body.js';
import { parseJsonBodyWithSpans, type JsonNode } from '../json-body.js';
import { answerJson } from '../json-answer.js';

/** Lock requests are three short fields: a small body is plenty. */
const MAX_LOCK_BODY = 64 * 1024;

const owned = (body: JsonNode) => ({ resourceId: body.field('resourceId')?.string() ?? '', lockOwner: body.field('lockOwner')?.string() ?? '' });

/**
 * `POST /v1.0-alpha1/lock/<store>` `{resourceId, lockOwner, expiryInSeconds}` → `{"success": bool}`, and
 * `POST /v1.0-alpha1/unlock/<store>` `{resourceId, lockOwner}` → `{"status": n}` with the status as its number
 * (Dapr answers both with every field, `false` and `0` included, which SDKs read).
 */
export function lockRoutes(api: LockApi): HttpRouteGroup {
  const body = async (ctx: RouterContext) => parseJsonBodyWithSpans(await readRawBody(ctx, MAX_LOCK_BODY), 0);
  return {
    mount(router: Router) {
      router.post('/v1.0-alpha1/lock/:store', async (ctx) => {
        const req = await body(ctx);
        answerJson(ctx, await api.tryLock(ctx.params.store!, { ...owned(req), expiryInSeconds: req.field('expiryInSeconds')?.integer() ?? 0 }));
      });
      router.post('/v1.0-alpha1/unlock/:store', async (ctx) => {
        answerJson(ctx, await api.unlock(ctx.params.store!, owned(await body(ctx))));
      });
    },
  };
}
