/**
 * A head and a long list as JSON lines (the head, then one item per line), written and read in slices that yield
 * to the event loop. One `JSON.parse` of a worker's 100,000-action answer or a 200,000-event history held svcd's
 * event loop for 100 ms and more; line by line, health checks and other requests are answered in between.
 * `JSON.stringify` escapes every newline inside strings, so a line is always one value.
 */
import { YIELD_SLICE, yieldToEventLoop } from './event-loop.js';

export async function encodeJsonLines(head: unknown, items: readonly unknown[]): Promise<Buffer> {
  const lines = [JSON.stringify(head ?? null)];
  for (let from = 0; from < items.length; from += YIELD_SLICE) {
    if (from > 0) await yieldToEventLoop();
    for (const item of items.slice(from, from + YIELD_SLICE)) lines.push(JSON.stringify(item));
  }
  return Buffer.from(lines.join('\n'));
}

export async function decodeJsonLines<H, T>(bytes: Buffer): Promise<{ head: H; items: T[] }> {
  const lines = bytes.toString('utf8').split('\n');
  const items: T[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (i % YIELD_SLICE === 0) await yieldToEventLoop();
    items.push(JSON.parse(lines[i] as string) as T);
  }
  return { head: JSON.parse(lines[0] as string) as H, items };
}
