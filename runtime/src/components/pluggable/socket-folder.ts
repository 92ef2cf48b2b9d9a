import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { RuntimeError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import { byName } from '../../util/by-name.js';

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
 * Whose sockets svcd uses. A socket is a component of this app: whoever created it receives what the app saves.
 * Standalone, only sockets (and a folder) owned by svcd's own user or root are used; in Kubernetes the folder is
 * the pod's own volume, shared by containers that may run as any user, so any owner is (`any`).
 */
export type SocketOwners = { readonly any: true } | { readonly uids: ReadonlySet<number> };

/** `--pluggable-trusted-uids`: `*`, or uids added to svcd's own and root's; empty: the mode's default. */
export function socketOwnersFrom(option: string, mode: 'standalone' | 'kubernetes', ownUid: number): SocketOwners {
  const text = option.trim();
  if (text === '*' || (text === '' && mode === 'kubernetes')) return { any: true };
  const extra = text === '' ? [] : text.split(',').map((u) => u.trim());
  for (const u of extra) {
    if (!/^\d+$/.test(u)) throw new RuntimeError('ERR_CONFIG_INVALID', `--pluggable-trusted-uids must be * or a comma-separated list of numeric uids, got '${option}'`);
  }
  return { uids: new Set([ownUid, 0, ...extra.map(Number)]) };
}

const trusts = (owners: SocketOwners, uid: number) => 'any' in owners || owners.uids.has(uid);

/** A socket (or the folder) whose owner svcd does not trust: left out, and said so by the caller. */
export interface UntrustedFile {
  readonly path: string;
  readonly uid: number;
}

export interface SocketListing {
  readonly sockets: SocketFile[];
  readonly untrusted: UntrustedFile[];
}

/** Why an untrusted file is not used, for logs and errors. */
export function untrustedReason(file: UntrustedFile): string {
  return `${file.path} is owned by uid ${file.uid}, which svcd (uid ${process.geteuid?.() ?? '?'}) does not trust; to use it, pass --pluggable-trusted-uids ${file.uid} (or SVC_PLUGGABLE_TRUSTED_UIDS)`;
}

/**
 * The socket files of `folder` whose owner is trusted, sorted by name, and those left out for their owner (all
 * of them when the folder itself has an untrusted owner). Entries are typed without following links (a symlink
 * to a socket is not a socket); anything else is skipped with a debug line. A missing folder means no sockets.
 */
export async function listSocketFiles(folder: string, owners: SocketOwners, log: Logger): Promise<SocketListing> {
  let entries;
  let folderUid: number;
  try {
    folderUid = (await lstat(folder)).uid;
    entries = await readdir(folder, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      log.debug({ folder }, 'no pluggable components socket folder');
      return { sockets: [], untrusted: [] };
    }
    throw err;
  }
  if (!trusts(owners, folderUid)) return { sockets: [], untrusted: [{ path: folder, uid: folderUid }] };
  const listing: SocketListing = { sockets: [], untrusted: [] };
  for (const entry of entries.sort(byName)) {
    const file = path.join(folder, entry.name);
    if (!entry.isSocket()) {
      log.debug({ file }, 'skipping a file of the sockets folder that is not a Unix socket');
      continue;
    }
    const uid = await lstat(file).then(
      (st) => st.uid,
      () => undefined, // gone since the listing
    );
    if (uid === undefined) continue;
    if (trusts(owners, uid)) listing.sockets.push({ name: componentNameOf(entry.name), path: file });
    else listing.untrusted.push({ path: file, uid });
  }
  return listing;
}
