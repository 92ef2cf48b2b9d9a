import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../log/logger.js';

/** A Unix socket file of the components folder and the component name it stands for. */
export interface SocketFile {
  /** The file name without its last extension: `my-store.sock` → `my-store`, `a.b.sock` → `a.b`. */
  readonly name: string;
  readonly path: string;
}

export function componentNameOf(fileName: string): string {
  const ext = path.extname(fileName);
  return ext === '' || ext === fileName ? fileName : fileName.slice(0, -ext.length);
}

/**
 * The socket files of `folder`, sorted by name. Entries are typed without following links (a symlink to a socket
 * is not a socket); anything else is skipped with a debug line. A missing folder means no pluggable components.
 */
export async function listSocketFiles(folder: string, log: Logger): Promise<SocketFile[]> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      log.debug({ folder }, 'no pluggable components socket folder');
      return [];
    }
    throw err;
  }
  const sockets: SocketFile[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isSocket()) {
      log.debug({ file: path.join(folder, entry.name) }, 'skipping a file of the sockets folder that is not a Unix socket');
      continue;
    }
    sockets.push({ name: componentNameOf(entry.name), path: path.join(folder, entry.name) });
  }
  return sockets;
}
