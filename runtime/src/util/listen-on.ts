import type { AddressInfo, Server } from 'node:net';

/** Binds `server` (any `node:net` server: HTTP, metrics, gRPC's) to `host:port`; the bound port, or the bind error. */
export function listenOn(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
