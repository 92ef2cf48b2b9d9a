import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Folders made by `tempFolder` and not removed yet. */
const live = new Set<string>();
let removeAtExit = false;

/**
 * A fresh folder under the OS temp dir (keep `prefix` short: Unix socket paths in it are limited to ~100 bytes).
 * Remove it with `removeTempFolder` as soon as nothing needs it; whatever is left is removed when the test
 * process exits, so an aborted suite does not leave it in /tmp either.
 */
export function tempFolder(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  live.add(dir);
  if (!removeAtExit) {
    removeAtExit = true;
    process.once('exit', () => {
      for (const left of live) rmSync(left, { recursive: true, force: true });
    });
  }
  return dir;
}

export function removeTempFolder(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  live.delete(dir);
}

/** The live temp folder `file` is inside, if any (a restarted svcd reusing the data of an earlier one). */
export function tempFolderHolding(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  return [...live].find((dir) => file.startsWith(dir + path.sep));
}
