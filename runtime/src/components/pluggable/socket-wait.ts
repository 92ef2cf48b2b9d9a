import { watch } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { Logger } from '../../log/logger.js';
import { listSocketFiles, type SocketFile } from './socket-folder.js';

/**
 * Resolves with the socket of component `name` as soon as it appears in `folder` (woken by fs.watch, no polling),
 * or undefined after `timeoutMs`. The folder is created if missing so it can be watched.
 */
export async function waitForSocket(folder: string, name: string, timeoutMs: number, log: Logger): Promise<SocketFile | undefined> {
  await mkdir(folder, { recursive: true });
  return new Promise<SocketFile | undefined>((resolve, reject) => {
    let done = false;
    const finish = (err: Error | undefined, socket?: SocketFile) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      watcher.close();
      if (err) reject(err);
      else resolve(socket);
    };
    const look = () => {
      listSocketFiles(folder, log).then(
        (sockets) => {
          // Component types are case-insensitive (state.MyStore = state.mystore), so are socket names here.
          const found = sockets.find((s) => s.name.toLowerCase() === name.toLowerCase());
          if (found) finish(undefined, found);
        },
        (err: Error) => finish(err),
      );
    };
    // Watch first, then look: a socket created in between is seen either way.
    const watcher = watch(folder, look);
    watcher.on('error', (err) => finish(err));
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    look();
  });
}
