/**
 * Waits until svcd accepts connections on its gRPC API port. svcd opens that port only once its components and
 * actors are ready, and in a pod the app container starts beside svcd, not after it: without this wait the
 * Durable Task worker's first `Hello` fails, and @dapr/durabletask-js gives up on a first connection that fails.
 */
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const RETRY_MS = 500;
const REPORT_EVERY_MS = 10_000;

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** `address` as the SDK takes it, `host:port`. Waits as long as it takes, saying so every 10 seconds. */
export async function waitForSidecar(address: string): Promise<void> {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at) || 'localhost';
  const port = Number(address.slice(at + 1));
  if (at < 0 || !Number.isInteger(port) || port <= 0) throw new Error(`SVC_GRPC_ADDRESS must be host:port, got "${address}"`);
  const started = Date.now();
  let reported = started;
  while (!(await accepts(host, port))) {
    if (Date.now() - reported >= REPORT_EVERY_MS) {
      reported = Date.now();
      console.log(`waiting for svcd at ${address} (${Math.round((reported - started) / 1000)} s)`);
    }
    await sleep(RETRY_MS);
  }
}
