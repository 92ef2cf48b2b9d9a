import { expect } from 'chai';

/** Retries `probe` until it returns true; svcd's view of a component changes without any event a test can await. */
export async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect.fail(`not within ${timeoutMs} ms: ${what}`);
}
