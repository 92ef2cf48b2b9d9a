/**
 * Bodies of calls between replicas: JSON, with Buffers carried as `{"$b":"<base64>"}` so actor payloads and
 * reminder data cross unchanged. `undefined` travels as an empty message.
 */
const BUFFER_TAG = '$b';

export function encodePeerBody(value: unknown): Buffer {
  if (value === undefined) return Buffer.alloc(0);
  return Buffer.from(
    JSON.stringify(value, function (this: Record<string, unknown>, key, v: unknown) {
      // Buffer.toJSON has already run on `v`; the holder still has the Buffer itself.
      const raw = this[key];
      return Buffer.isBuffer(raw) ? { [BUFFER_TAG]: raw.toString('base64') } : v;
    }),
  );
}

export function decodePeerBody(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  return JSON.parse(bytes.toString('utf8'), (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const tagged = o[BUFFER_TAG];
      if (typeof tagged === 'string' && Object.keys(o).length === 1) return Buffer.from(tagged, 'base64');
    }
    return v;
  });
}
