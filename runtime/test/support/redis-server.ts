import { spawn } from 'node:child_process';
import net from 'node:net';
import { TestChildProcess } from './child-process.js';

/** A private, memory-only redis-server on a loopback port, for tests that stop and restart the server itself. */
export class PrivateRedisServer extends TestChildProcess {
  static async start(port: number): Promise<PrivateRedisServer> {
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new PrivateRedisServer(child);
    await server.#waitAccepting(port, 10_000);
    return server;
  }

  async #waitAccepting(port: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`redis-server exited:\n${this.output}`);
      const accepted = await new Promise<boolean>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(true));
        socket.once('error', () => resolve(false));
        socket.once('connect', () => socket.destroy());
      });
      if (accepted) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms:\n${this.output}`);
  }
}
