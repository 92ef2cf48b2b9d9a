import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type { OutputBindingApi } from '../../../bindings/output-api.js';
import type { HttpRouteGroup } from '../app.js';
import { readRawBody } from '../body.js';
import { parseJsonBodyWithSpans } from '../json-body.js';

/** `{data, metadata, operation}`: `data` a JSON string is sent as its text, any other JSON value as its JSON. */
function decodeInvokeBody(raw: Buffer): { operation: string; data: Buffer; metadata: Record<string, string> } {
  const body = parseJsonBodyWithSpans(raw, 1);
  const data = body.field('data');
  return {
    operation: body.field('operation')?.string() ?? '',
    data: data === undefined ? Buffer.alloc(0) : typeof data.value === 'string' ? Buffer.from(data.value, 'utf8') : data.rawBytes(),
    metadata: body.field('metadata')?.stringMap() ?? {},
  };
}

/** `/v1.0/bindings/<name>`: invokes an output binding; its answer's data is the body, its metadata `metadata.<k>` headers. */
export function bindingRoutes(api: OutputBindingApi, maxBodyBytes: number): HttpRouteGroup {
  return {
    mount(router: Router) {
      const invoke = async (ctx: RouterContext) => {
        const res = await api.invoke(ctx.params.name!, decodeInvokeBody(await readRawBody(ctx, maxBodyBytes)));
        for (const [k, v] of Object.entries(res.metadata)) {
          if (/^[\w.-]+$/.test(k) && /^[\t\x20-\x7e]*$/.test(v)) ctx.set(`metadata.${k}`, v); // what HTTP headers can carry
        }
        if (res.data.length === 0) {
          ctx.status = 204;
          return;
        }
        ctx.status = 200;
        ctx.type = res.contentType || 'application/json';
        ctx.body = res.data;
      };
      router.post('/v1.0/bindings/:name', invoke);
      router.put('/v1.0/bindings/:name', invoke);
    },
  };
}
