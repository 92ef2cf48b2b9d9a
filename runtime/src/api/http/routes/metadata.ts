import type Router from '@koa/router';
import type { HttpRouteGroup } from '../app.js';

/** Each part of the runtime contributes its own fields to `/v1.0/metadata` (components, actors, workflows…). */
export type MetadataContributor = () => Record<string, unknown>;

export function metadataRoutes(contributors: readonly MetadataContributor[]): HttpRouteGroup {
  return {
    mount(router: Router) {
      router.get('/v1.0/metadata', (ctx) => {
        ctx.body = Object.assign({}, ...contributors.map((c) => c()));
      });
    },
  };
}
