import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import { RuntimeError, isRuntimeError } from '../../../errors/runtime-error.js';
import { isJsonContentType, isCloudEventContentType } from '../../../app/cloudevents.js';
import type { BulkPublishEntry, PublishApi } from '../../../pubsub/publish-api.js';
import type { HttpRouteGroup } from '../app.js';
import { metadataFromQuery, readRawBody } from '../body.js';
import { parseJsonBodyWithSpans, type JsonNode } from '../json-body.js';
import { answerJson } from '../json-answer.js';

const header = (ctx: RouterContext, name: string): string | undefined => ctx.get(name) || undefined;

/** One bulk entry's bytes: JSON events exactly as sent, any other content type's event must be a string. */
function entryBytes(event: JsonNode, contentType: string): Buffer {
  if (isJsonContentType(contentType) || isCloudEventContentType(contentType)) return event.rawBytes();
  return Buffer.from(event.string(), 'utf8');
}

/** `[{entryId, event, contentType, metadata}]`; a malformed body is ERR_PUBSUB_EVENTS_SER, as Dapr SDKs expect. */
function decodeBulkBody(raw: Buffer): BulkPublishEntry[] {
  try {
    return parseJsonBodyWithSpans(raw, 2)
      .items()
      .map((entry) => {
        const contentType = entry.field('contentType')?.string() ?? 'application/json';
        const event = entry.field('event');
        if (!event) throw new RuntimeError('ERR_MALFORMED_REQUEST', `${entry.path}.event is required`);
        return {
          entryId: entry.field('entryId')?.string() ?? '',
          data: entryBytes(event, contentType),
          contentType,
          metadata: entry.field('metadata')?.stringMap() ?? {},
        };
      });
  } catch (err) {
    if (isRuntimeError(err, 'ERR_MALFORMED_REQUEST')) throw new RuntimeError('ERR_PUBSUB_EVENTS_SER', `error when unmarshaling the bulk publish request: ${err.message}`, { cause: err });
    throw err;
  }
}

/** `/v1.0/publish/<pubsub>/<topic>` and `/v1.0-alpha1/publish/bulk/<pubsub>/<topic>`. */
export function publishRoutes(api: PublishApi, maxBodyBytes: number): HttpRouteGroup {
  return {
    mount(router: Router) {
      router.post('/v1.0/publish/:pubsub/:topic', async (ctx) => {
        const data = await readRawBody(ctx, maxBodyBytes);
        await api.publish(ctx.params.pubsub!, ctx.params.topic!, {
          data,
          contentType: header(ctx, 'content-type'),
          metadata: metadataFromQuery(ctx),
          ...(header(ctx, 'traceparent') ? { traceparent: header(ctx, 'traceparent') } : {}),
          ...(header(ctx, 'tracestate') ? { tracestate: header(ctx, 'tracestate') } : {}),
        });
        ctx.status = 204;
      });
      // Said plainly rather than a bare "no route": the topic is missing.
      router.post('/v1.0/publish/:pubsub', async (ctx) => {
        await api.publish(ctx.params.pubsub!, '', { data: Buffer.alloc(0), contentType: undefined, metadata: {} });
      });

      router.post('/v1.0-alpha1/publish/bulk/:pubsub/:topic', async (ctx) => {
        const entries = decodeBulkBody(await readRawBody(ctx, maxBodyBytes));
        const result = await api.bulkPublish(ctx.params.pubsub!, ctx.params.topic!, entries, metadataFromQuery(ctx));
        if (result.failedEntries.length === 0) {
          ctx.status = 204;
          return;
        }
        ctx.status = 500;
        answerJson(ctx, { failedEntries: result.failedEntries, errorCode: 'ERR_PUBSUB_PUBLISH_MESSAGE', message: `${result.failedEntries.length} of ${entries.length} entries were not published` });
      });
    },
  };
}
