/**
 * Long synchronous loops (a turn recording 100,000 actions, encoding 100,000 history events) yield to the event
 * loop between slices, so health checks and other requests are answered meanwhile.
 */
export const YIELD_SLICE = 2000;

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs `body` over `items` in slices of `YIELD_SLICE`, yielding between slices (not before the first). */
export async function inSlices<T>(items: readonly T[], body: (item: T, index: number) => void): Promise<void> {
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % YIELD_SLICE === 0) await yieldToEventLoop();
    body(items[i] as T, i);
  }
}
