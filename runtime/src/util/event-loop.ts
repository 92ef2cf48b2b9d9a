/**
 * Long synchronous loops (a turn recording 100,000 actions, encoding 100,000 history events) yield to the event
 * loop between slices, so health checks and other requests are answered meanwhile.
 */
export const YIELD_SLICE = 2000;

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs `body` over `items` in slices of `YIELD_SLICE`, yielding between slices (not before the first). */
export async function inSlices<T>(items: Iterable<T>, body: (item: T, index: number) => void): Promise<void> {
  let i = 0;
  for (const item of items) {
    if (i > 0 && i % YIELD_SLICE === 0) await yieldToEventLoop();
    body(item, i++);
  }
}

/** `items.map(fn)` in slices (see `inSlices`). */
export async function mapInSlices<T, U>(items: Iterable<T>, fn: (item: T, index: number) => U): Promise<U[]> {
  const out: U[] = [];
  await inSlices(items, (item, i) => out.push(fn(item, i)));
  return out;
}

/** Runs `steps` in order, yielding to the event loop after each, so that I/O waiting meanwhile is served between them. */
export async function oneStepATurn(steps: readonly (() => void)[]): Promise<void> {
  for (const step of steps) {
    step();
    await yieldToEventLoop();
  }
}
