/**
 * `data` itself when it has its memory to itself, else a copy that has. For bytes kept long: a small Buffer is
 * often a slice of Node's shared 8 KiB pool (or of a larger read), and holding the slice holds all of it — 100,000
 * activations each caching a 200-byte value kept ~1.8 KiB apiece that way.
 */
export function ownBytes(data: Buffer): Buffer {
  if (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength) return data;
  const own = Buffer.allocUnsafeSlow(data.byteLength);
  data.copy(own);
  return own;
}
