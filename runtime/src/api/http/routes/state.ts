import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type { Context } from 'koa';
import type { StateApi } from '../../../state/state-api.js';
import type { BulkGetItem } from '../../../components/contracts/state-store.js';
import type { IncomingMessage } from 'node:http';
import type { HttpRouteGroup } from '../app.js';
import type { Answer } from '../fast-routes.js';
import { metadataFromQuery, readRawBody } from '../body.js';
import { decodeBulkGetBody, decodeSaveBody, decodeTransactionBody } from '../state-body.js';
import { setJsonType } from '../json-answer.js';

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

const GET_PATTERN = '/v1.0/state/:store/:key';
const SAVE_PATTERN = '/v1.0/state/:store';

/** A key's value: 200 with the stored JSON, its ETag and `metadata.*` headers, or 204 when there is none. */
async function getAnswer(api: StateApi, store: string, key: string, opts: Parameters<StateApi['get']>[2]): Promise<Answer> {
  const res = await api.get(store, key, opts);
  if (!res) return { status: 204 };
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.metadata ?? {})) headers[`metadata.${k}`] = v;
  if (res.etag !== undefined) headers.ETag = res.etag;
  return { status: 200, headers, body: res.data };
}

async function saveAnswer(api: StateApi, store: string, request: { readonly req: IncomingMessage }, maxBodyBytes: number, metadata: Record<string, string>): Promise<Answer> {
  await api.save(store, decodeSaveBody(await readRawBody(request, maxBodyBytes)), metadata);
  return { status: 204 };
}

/** An answer through koa (the path for every request the fast path leaves). */
function answerWith(ctx: Context, answer: Answer): void {
  ctx.status = answer.status;
  if (answer.headers) ctx.set(answer.headers);
  if (answer.body !== undefined) {
    setJsonType(ctx);
    ctx.body = answer.body;
  }
}

/**
 * `/v1.0/state/<store>`: save, get, delete, bulk get and transaction. Get and save are also fast routes: without a
 * query string (no metadata, default consistency) they are answered before koa.
 */
export function stateRoutes(api: StateApi, maxBodyBytes: number): HttpRouteGroup {
  const save = (params: Readonly<Record<string, string>>, req: IncomingMessage) => saveAnswer(api, params.store!, { req }, maxBodyBytes, {});
  return {
    fast: [
      { method: 'GET', pattern: GET_PATTERN, answer: (params) => getAnswer(api, params.store!, params.key!, { metadata: {} }) },
      { method: 'POST', pattern: SAVE_PATTERN, answer: save },
      { method: 'PUT', pattern: SAVE_PATTERN, answer: save },
    ],
    mount(router: Router) {
      const save = async (ctx: RouterContext) => answerWith(ctx, await saveAnswer(api, ctx.params.store!, ctx, maxBodyBytes, metadataFromQuery(ctx)));
      const bulkGet = async (ctx: RouterContext) => {
        const body = decodeBulkGetBody(await readRawBody(ctx, maxBodyBytes));
        const items = await api.bulkGet(ctx.params.store!, body.keys, { ...body.metadata, ...metadataFromQuery(ctx) });
        setJsonType(ctx);
        ctx.body = `[${items.map(bulkItemJson).join(',')}]`;
      };
      const transaction = async (ctx: RouterContext) => {
        const body = decodeTransactionBody(await readRawBody(ctx, maxBodyBytes));
        await api.transact(ctx.params.store!, body.operations, { ...body.metadata, ...metadataFromQuery(ctx) });
        ctx.status = 204;
      };

      router.post(SAVE_PATTERN, save);
      router.put(SAVE_PATTERN, save);
      router.post('/v1.0/state/:store/bulk', bulkGet);
      router.put('/v1.0/state/:store/bulk', bulkGet);
      router.post('/v1.0/state/:store/transaction', transaction);
      router.put('/v1.0/state/:store/transaction', transaction);

      router.get(GET_PATTERN, async (ctx) => {
        answerWith(ctx, await getAnswer(api, ctx.params.store!, ctx.params.key!, { metadata: metadataFromQuery(ctx), consistency: queryString(ctx, 'consistency') }));
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
