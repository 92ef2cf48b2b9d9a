/** The Koa app: POST /mutate (AdmissionReview JSON in and out) and GET /healthz. Only I/O lives here. */
import Koa from 'koa';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { ensureError, InjectorError } from '../errors.js';
import { decodeAdmissionReview } from './admission.js';
import type { MutationService } from './mutation.js';

/** Pod objects are far smaller; the API server itself caps requests at a few MiB. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

async function readBody(ctx: Koa.Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new InjectorError('ERR_BODY_TOO_LARGE', `request body exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Did the caller present a client certificate the server's client CA signed? */
function callerVerified(ctx: Koa.Context): boolean {
  return (ctx.req.socket as Partial<TLSSocket>).authorized === true;
}

export function createWebhookApp(deps: { mutation: MutationService; log: Logger; ready: () => boolean; requireClientCert: boolean }): Koa {
  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const e = err instanceof InjectorError ? err : new InjectorError('ERROR', ensureError(err).message, { cause: err });
      if (e.httpStatus >= 500) deps.log.error({ err: e.message, path: ctx.path }, 'request failed');
      ctx.status = e.httpStatus;
      ctx.body = e.toBody();
    }
  });
  app.use(async (ctx) => {
    if (ctx.path === '/healthz') {
      if (ctx.method !== 'GET') throw new InjectorError('ERR_METHOD_NOT_ALLOWED', 'use GET /healthz');
      if (!deps.ready()) throw new InjectorError('ERROR', 'not ready');
      ctx.status = 200;
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path !== '/mutate') throw new InjectorError('ERR_NOT_FOUND', `no route ${ctx.method} ${ctx.path}`);
    if (ctx.method !== 'POST') throw new InjectorError('ERR_METHOD_NOT_ALLOWED', 'use POST /mutate');
    const verified = callerVerified(ctx);
    if (deps.requireClientCert && !verified) {
      throw new InjectorError('ERR_UNAUTHORIZED', 'a client certificate signed by the CA of --client-ca-file is required: only the API server may call /mutate');
    }
    if (!ctx.is('application/json')) throw new InjectorError('ERR_UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    const raw = await readBody(ctx);
    if (raw.length === 0) throw new InjectorError('ERR_MALFORMED_REQUEST', 'empty body');
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      throw new InjectorError('ERR_MALFORMED_REQUEST', `body is not JSON: ${(err as Error).message}`);
    }
    const review = decodeAdmissionReview(body);
    if (typeof review === 'string') throw new InjectorError('ERR_MALFORMED_REQUEST', `not an AdmissionReview: ${review}`);
    ctx.status = 200;
    ctx.body = await deps.mutation.review(review, { verified });
  });
  return app;
}
