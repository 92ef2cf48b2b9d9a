import { watch } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { Logger } from '../../log/logger.js';
import path from 'node:path';
import { RuntimeError } from '../../errors/runtime-error.js';
import { componentNameOf, listSocketFiles, untrustedReason, type SocketFile, type SocketOwners } from './socket-folder.js';

/**
 * Resolves with the socket of component `name` as soon as it appears in `folder` (woken by fs.watch, no polling),
 * or undefined after `timeoutMs`; rejects at once when it appears with an owner svcd does not trust. The folder is
 * created if missing so it can be watched, readable by svcd's user only (components running as another user need a
 * folder made for them, or --pluggable-trusted-uids and a folder they can write to).
 */
export async function waitForSocket(folder: string, name: string, owners: SocketOwners, timeoutMs: number, log: Logger): Promise<SocketFile | undefined> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
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
      listSocketFiles(folder, owners, log).then(
        ({ sockets, untrusted }) => {
          // Component types are case-insensitive (state.MyStore = state.mystore), so are socket names here.
          const found = sockets.find((s) => s.name.toLowerCase() === name.toLowerCase());
          if (found) return finish(undefined, found);
          const refused = untrusted.find((f) => f.path === folder || componentNameOf(path.basename(f.path)).toLowerCase() === name.toLowerCase());
          if (refused) finish(new RuntimeError('ERR_PLUGGABLE_SOCKET_UNTRUSTED', `pluggable component socket not used: ${untrustedReason(refused)}`));
          else if (timeoutMs === 0) finish(undefined); // no wait: one look is all
        },
        (err: Error) => finish(err),
      );
    };
    // Watch first, then look: a socket created in between is seen either way.
    const watcher = watch(folder, look);
    watcher.on('error', (err) => finish(err));
    const timer = timeoutMs > 0 ? setTimeout(() => finish(undefined), timeoutMs) : undefined;
    look();
  });
}
