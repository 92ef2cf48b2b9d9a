import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { RuntimeError } from '../../errors/runtime-error.js';

/**
 * After a 413, the rest of the body is read and thrown away (up to this much), so a client still sending can
 * finish and read the answer instead of failing on a reset connection; past it, the connection is dropped.
 */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Reads the raw request body, refusing anything over the size limit with 413 before buffering it all.
 * Raw bytes matter: workflow input and state values are passed on exactly as the client sent them. Takes a koa
 * context or, on the fast path, `{ req }`.
 */
export async function readRawBody({ req }: { readonly req: IncomingMessage }, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] || NaN);
  if (Number.isFinite(declared) && declared > limitBytes) {
    discardRest(req);
    throw tooLarge(limitBytes);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: Error) => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        done(tooLarge(limitBytes));
        discardRest(req);
      } else chunks.push(chunk);
    };
    const onEnd = () => done();
    const onError = (err: Error) => done(new RuntimeError('ERR_BODY_READ', `failed to read request body: ${err.message}`, { cause: err }));
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

function discardRest(req: IncomingMessage): void {
  let discarded = 0;
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT_BYTES) {
      req.off('data', onData);
      req.socket.destroy();
    }
  };
  req.on('data', onData).once('end', () => req.off('data', onData));
}

function tooLarge(limitBytes: number): RuntimeError {
  return new RuntimeError('ERR_BODY_TOO_LARGE', `request body exceeds the limit of ${limitBytes} bytes (--max-request-size)`);
}

/** Parses a JSON body, mapping syntax errors to 400 ERR_MALFORMED_REQUEST. */
export function parseJsonBody(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new RuntimeError('ERR_MALFORMED_REQUEST', `failed deserializing HTTP body: ${(err as Error).message}`, { cause: err });
  }
}

/** Query parameters named `metadata.<k>` become `<k>`; only the first value is kept. */
export function metadataFromQuery(ctx: Context): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.query)) {
    if (!k.startsWith('metadata.') || v === undefined) continue;
    out[k.slice('metadata.'.length)] = Array.isArray(v) ? (v[0] ?? '') : v;
  }
  return out;
}
