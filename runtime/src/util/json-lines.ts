/**
 * A head and a long list as JSON lines (the head, then one item per line), written and read in slices that yield
 * to the event loop. One `JSON.parse` of a worker's 100,000-action answer or a 200,000-event history held svcd's
 * event loop for 100 ms and more; line by line, health checks and other requests are answered in between.
 * `JSON.stringify` escapes every newline inside strings, so a line is always one value.
 *
 * Neither side makes the whole text one string: joining, encoding, decoding and splitting 10 MB at once were each
 * a synchronous step of 10–30 ms, and the split lines were slices that kept the large string alive. Each slice
 * of lines becomes its own Buffer (the parts are concatenated by a copy), and each line is decoded from its bytes.
 */
import { YIELD_SLICE, yieldToEventLoop } from './event-loop.js';

const NEWLINE = 0x0a;
const LINE_BREAK = Buffer.from([NEWLINE]);

export async function encodeJsonLines(head: unknown, items: readonly unknown[]): Promise<Buffer> {
  const parts = [Buffer.from(JSON.stringify(head ?? null))];
  for (let from = 0; from < items.length; from += YIELD_SLICE) {
    if (from > 0) await yieldToEventLoop();
    const lines: string[] = [];
    for (let i = from; i < Math.min(from + YIELD_SLICE, items.length); i++) lines.push(JSON.stringify(items[i]));
    parts.push(Buffer.from(`\n${lines.join('\n')}`));
  }
  return Buffer.concat(parts);
}

/**
 * Like `encodeJsonLines` for items that are JSON already (each `JSON.stringify`'s bytes, so one line each): their
 * bytes are joined as they are, with no parse and no second stringify.
 */
export function joinJsonLines(head: unknown, encodedItems: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from(JSON.stringify(head ?? null))];
  for (const item of encodedItems) parts.push(LINE_BREAK, item);
  return Buffer.concat(parts);
}

export async function decodeJsonLines<H, T>(bytes: Buffer): Promise<{ head: H; items: T[] }> {
  const lineAt = (start: number): { value: unknown; next: number } => {
    const end = bytes.indexOf(NEWLINE, start);
    const stop = end === -1 ? bytes.length : end;
    return { value: JSON.parse(bytes.toString('utf8', start, stop)), next: end === -1 ? -1 : end + 1 };
  };
  const first = lineAt(0);
  const items: T[] = [];
  for (let next = first.next; next !== -1; ) {
    if (items.length > 0 && items.length % YIELD_SLICE === 0) await yieldToEventLoop();
    const line = lineAt(next);
    items.push(line.value as T);
    next = line.next;
  }
  return { head: first.value as H, items };
}
