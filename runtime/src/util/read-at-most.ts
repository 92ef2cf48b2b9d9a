import type { Readable } from 'node:stream';
import { RuntimeError } from '../errors/runtime-error.js';

/** Reads a stream whole, failing with 413 ERR_BODY_TOO_LARGE (and destroying it) once it passes `limitBytes`. */
export async function readAtMost(stream: Readable, limitBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) {
      stream.destroy();
      throw new RuntimeError('ERR_BODY_TOO_LARGE', `the body exceeds the limit of ${limitBytes} bytes (--max-request-size)`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}
