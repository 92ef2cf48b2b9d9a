import type Router from '@koa/router';
import type { SecretsApi } from '../../../secrets/secrets-api.js';
import type { HttpRouteGroup } from '../app.js';
import { metadataFromQuery } from '../body.js';
import { answerJson } from '../json-answer.js';

/**
 * `GET /v1.0/secrets/<store>/<key>` (200, the secret's values as a JSON map) and `GET /v1.0/secrets/<store>/bulk`
 * (200, secret name → values); `metadata.<k>` query parameters go to the store. `bulk` is matched first, as in the
 * reference system: a secret named `bulk` is read through the bulk answer.
 */
export function secretRoutes(api: SecretsApi): HttpRouteGroup {
  return {
    mount(router: Router) {
      router.get('/v1.0/secrets/:store/bulk', async (ctx) => {
        answerJson(ctx, await api.bulk(ctx.params.store!, metadataFromQuery(ctx)));
      });
      router.get('/v1.0/secrets/:store/:key', async (ctx) => {
        answerJson(ctx, await api.get(ctx.params.store!, ctx.params.key!, metadataFromQuery(ctx)));
      });
    },
  };
}
