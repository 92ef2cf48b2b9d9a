import { ensureError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import type { ReflectionVersion } from '@svc/proto';
import { listServicesByReflection } from './reflection-client.js';
import { apisOf, type DiscoveredApi } from './service-map.js';
import { checkSocketsFolder, listSocketFiles, untrustedReason, type SocketFile, type SocketOwners } from './socket-folder.js';

/** A socket that answered reflection, with the component APIs it offers. */
export interface DiscoveredComponent {
  readonly name: string;
  readonly socketPath: string;
  readonly reflection: ReflectionVersion;
  readonly apis: readonly DiscoveredApi[];
}

export async function probeSocket(socket: SocketFile, timeoutMs: number): Promise<DiscoveredComponent> {
  const listing = await listServicesByReflection(socket.path, timeoutMs);
  return { name: socket.name, socketPath: socket.path, reflection: listing.version, apis: apisOf(listing.services) };
}

/**
 * Lists the sockets of the folder and probes them all at once, each bounded by `probeTimeoutMs`. A socket that
 * fails (nobody answers, not gRPC, no reflection) is logged and left out; it never hides the others.
 */
export async function discoverPluggableComponents(folder: string, opts: { probeTimeoutMs: number; owners: SocketOwners; log: Logger }): Promise<DiscoveredComponent[]> {
  await checkSocketsFolder(folder, opts.log);
  const { sockets, untrusted } = await listSocketFiles(folder, opts.owners, opts.log);
  for (const file of untrusted) opts.log.warn({ socket: file.path, ownerUid: file.uid }, `pluggable component socket not used: ${untrustedReason(file)}`);
  const results = await Promise.allSettled(sockets.map((s) => probeSocket(s, opts.probeTimeoutMs)));
  const found: DiscoveredComponent[] = [];
  results.forEach((r, i) => {
    const socket = sockets[i]!;
    if (r.status === 'rejected') {
      opts.log.warn({ socket: socket.path, err: ensureError(r.reason).message }, 'could not discover the APIs of a pluggable component socket; skipping it');
      return;
    }
    if (r.value.apis.length === 0) opts.log.warn({ socket: socket.path }, 'pluggable component socket offers no known component API');
    found.push(r.value);
  });
  return found;
}
