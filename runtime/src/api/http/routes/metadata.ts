import type Router from '@koa/router';
import type { RuntimeMetadata } from '../../../metadata/runtime-metadata.js';
import type { HttpRouteGroup } from '../app.js';
import { readRawBody } from '../body.js';
import { answerJson } from '../json-answer.js';

/** Set attributes are labels: a small body is plenty. */
const MAX_ATTRIBUTE_BODY = 64 * 1024;

/** `GET /v1.0/metadata`, and `PUT /v1.0/metadata/<key>` with the value as the body. */
export function metadataRoutes(metadata: RuntimeMetadata): HttpRouteGroup {
  return {
    mount(router: Router) {
      router.get('/v1.0/metadata', (ctx) => {
        answerJson(ctx, metadata.snapshot());
      });
      router.put('/v1.0/metadata/:key', async (ctx) => {
        metadata.set(ctx.params.key!, (await readRawBody(ctx, MAX_ATTRIBUTE_BODY)).toString('utf8'));
        ctx.status = 204;
      });
    },
  };
}
