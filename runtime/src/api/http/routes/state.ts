import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type { Context } from 'koa';
import type { StateApi } from '../../../state/state-api.js';
import type { BulkGetItem } from '../../../state/store.js';
import type { HttpRouteGroup } from '../app.js';
import { metadataFromQuery, readRawBody } from '../body.js';
import { decodeBulkGetBody, decodeSaveBody, decodeTransactionBody } from '../state-body.js';

function queryString(ctx: Context, name: string): string | undefined {
  const v = ctx.query[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Stored bytes go into the response as JSON when they are JSON (the HTTP API only writes JSON), else as a string. */
function dataAsJson(data: Buffer): string {
  const text = data.toString('utf8');
  try {
    JSON.parse(text);
    return text;
  } catch {
    return JSON.stringify(text);
  }
}

function bulkItemJson(item: BulkGetItem): string {
  const parts = [`"key":${JSON.stringify(item.key)}`];
  if (item.data && item.data.length > 0) parts.push(`"data":${dataAsJson(item.data)}`);
  if (item.etag !== undefined) parts.push(`"etag":${JSON.stringify(item.etag)}`);
  if (item.metadata && Object.keys(item.metadata).length > 0) parts.push(`"metadata":${JSON.stringify(item.metadata)}`);
  if (item.error) parts.push(`"error":${JSON.stringify(item.error)}`);
  return `{${parts.join(',')}}`;
}

/** `/v1.0/state/<store>`: save, get, delete, bulk get and transaction. */
export function stateRoutes(api: StateApi, maxBodyBytes: number): HttpRouteGroup {
  return {
    mount(router: Router) {
      const save = async (ctx: RouterContext) => {
        const items = decodeSaveBody(await readRawBody(ctx, maxBodyBytes));
        await api.save(ctx.params.store!, items, metadataFromQuery(ctx));
        ctx.status = 204;
      };
      const bulkGet = async (ctx: RouterContext) => {
        const body = decodeBulkGetBody(await readRawBody(ctx, maxBodyBytes));
        const items = await api.bulkGet(ctx.params.store!, body.keys, { ...body.metadata, ...metadataFromQuery(ctx) });
        ctx.type = 'application/json';
        ctx.body = `[${items.map(bulkItemJson).join(',')}]`;
      };
      const transaction = async (ctx: RouterContext) => {
        const body = decodeTransactionBody(await readRawBody(ctx, maxBodyBytes));
        await api.transact(ctx.params.store!, body.operations, { ...body.metadata, ...metadataFromQuery(ctx) });
        ctx.status = 204;
      };

      router.post('/v1.0/state/:store', save);
      router.put('/v1.0/state/:store', save);
      router.post('/v1.0/state/:store/bulk', bulkGet);
      router.put('/v1.0/state/:store/bulk', bulkGet);
      router.post('/v1.0/state/:store/transaction', transaction);
      router.put('/v1.0/state/:store/transaction', transaction);

      router.get('/v1.0/state/:store/:key', async (ctx) => {
        const res = await api.get(ctx.params.store!, ctx.params.key!, { metadata: metadataFromQuery(ctx), consistency: queryString(ctx, 'consistency') });
        if (!res) {
          ctx.status = 204;
          return;
        }
        for (const [k, v] of Object.entries(res.metadata ?? {})) ctx.set(`metadata.${k}`, v);
        if (res.etag !== undefined) ctx.set('ETag', res.etag);
        ctx.body = res.data;
        ctx.type = 'application/json';
      });

      router.delete('/v1.0/state/:store/:key', async (ctx) => {
        await api.delete(ctx.params.store!, {
          key: ctx.params.key!,
          etag: ctx.get('if-match') || undefined,
          metadata: metadataFromQuery(ctx),
          options: { concurrency: queryString(ctx, 'concurrency'), consistency: queryString(ctx, 'consistency') },
        });
        ctx.status = 204;
      });
    },
  };
}
