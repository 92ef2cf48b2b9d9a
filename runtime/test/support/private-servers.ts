import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { TestChildProcess } from './child-process.js';

/** Resolves once `port` on loopback accepts connections; fails when the server exits first or after `timeoutMs`. */
async function waitAccepting(server: TestChildProcess, name: string, port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`${name} exited:\n${server.output}`);
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(true));
      socket.once('error', () => resolve(false));
      socket.once('connect', () => socket.destroy());
    });
    if (accepted) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${name} did not listen on ${port} within ${timeoutMs} ms:\n${server.output}`);
}

/** A private, memory-only redis-server on a loopback port, for tests that stop and restart the server itself. */
export class PrivateRedisServer extends TestChildProcess {
  /** With `password`, clients must AUTH (`requirepass`): for components whose password comes from a secret. */
  static async start(port: number, opts: { password?: string } = {}): Promise<PrivateRedisServer> {
    const auth = opts.password === undefined ? [] : ['--requirepass', opts.password];
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', ...auth], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new PrivateRedisServer(child);
    await waitAccepting(server, 'redis-server', port);
    return server;
  }
}

/** Debian installs it outside a normal user's PATH. */
const NATS_SERVER = existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';

/**
 * A private nats-server with JetStream on a loopback port, its store in `storeDir`, for tests that stop and
 * restart the server itself (started again on the same folder, it has the streams and consumers it had).
 */
export class PrivateNatsServer extends TestChildProcess {
  static async start(port: number, storeDir: string): Promise<PrivateNatsServer> {
    const child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const server = new PrivateNatsServer(child);
    await waitAccepting(server, 'nats-server', port);
    return server;
  }
}
