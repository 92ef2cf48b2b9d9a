import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type { ConfigurationApi, ConfigurationSubscriber } from '../../../configuration/configuration-api.js';
import { appChannelNil } from '../../../errors/catalogue.js';
import type { HttpRouteGroup } from '../app.js';
import { metadataFromQuery } from '../body.js';
import { answerJson } from '../json-answer.js';

export interface ConfigurationRouteDeps {
  readonly api: ConfigurationApi;
  readonly appId: string;
  /** Where an HTTP subscription's updates go (the app, over HTTP); undefined without an HTTP app channel. */
  readonly appSubscriber: ((storeName: string) => ConfigurationSubscriber) | undefined;
}

/** `?key=a&key=b` (none: every key) and `metadata.<k>` parameters. */
function request(ctx: RouterContext) {
  const keys = ctx.query.key;
  return { keys: keys === undefined ? [] : Array.isArray(keys) ? keys : [keys], metadata: metadataFromQuery(ctx) };
}

/**
 * `GET /v1.0/configuration/<store>` (200 with the items by key, 204 when none), `…/<store>/subscribe` (`{"id"}`;
 * changes are POSTed to the app at `/configuration/<store>/<key>`) and `…/<store>/<id>/unsubscribe`
 * (`{"ok":true}`, else 500 `{"ok":false,"message"}`), under `v1.0` and `v1.0-alpha1` as Dapr serves them.
 */
export function configurationRoutes(deps: ConfigurationRouteDeps): HttpRouteGroup {
  const { api } = deps;
  return {
    mount(router: Router) {
      for (const version of ['v1.0', 'v1.0-alpha1']) {
        const base = `/${version}/configuration/:store`;
        router.get(base, async (ctx) => {
          const items = await api.get(ctx.params.store!, request(ctx));
          if (Object.keys(items).length === 0) ctx.status = 204;
          else answerJson(ctx, items);
        });
        router.get(`${base}/subscribe`, async (ctx) => {
          const store = ctx.params.store!;
          if (!deps.appSubscriber) throw appChannelNil(deps.appId, 'configuration');
          answerJson(ctx, { id: await api.subscribe(store, request(ctx), deps.appSubscriber(store)) });
        });
        router.get(`${base}/:id/unsubscribe`, async (ctx) => {
          const answer = await api.unsubscribe(ctx.params.store!, ctx.params.id!);
          if (!answer.ok) ctx.status = 500;
          answerJson(ctx, answer);
        });
      }
    },
  };
}

