import { readdir, stat } from 'node:fs/promises';
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
 * Every socket in the folder is trusted as a component of this app: anyone who can create files there can serve
 * its state. svcd and the components need read and write access; nobody else should have it.
 */
export function warnIfWorldWritable(folder: string, mode: number, log: Logger): void {
  if ((mode & 0o002) !== 0) {
    log.warn({ folder, mode: (mode & 0o777).toString(8) }, 'the pluggable components sockets folder is writable by every user of this host; restrict it (e.g. chmod 770)');
  }
}

/** The permission check of the folder, once per scan; a missing folder is fine (no components). */
export async function checkSocketsFolder(folder: string, log: Logger): Promise<void> {
  try {
    warnIfWorldWritable(folder, (await stat(folder)).mode, log);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
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
