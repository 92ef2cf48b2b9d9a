import net from 'node:net';

/**
 * Ports this process has handed out. The kernel may offer a port again as soon as it is closed, so two calls in a
 * row could return the same one (etcd was once given one port for both its client and peer listeners).
 */
const handedOut = new Set<number>();

/** A port free right now on 127.0.0.1, never one this process was given before. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await portFreeNow();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

function portFreeNow(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
