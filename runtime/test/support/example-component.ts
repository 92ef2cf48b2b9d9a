/** Test helpers: the example pluggable component as a real child process, and misbehaving socket servers. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** runtime/dist/test/support → examples/pluggable-component/dist/src/main.js (built by `npm run build`). */
export const EXAMPLE_COMPONENT_MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../examples/pluggable-component/dist/src/main.js');

/** A fresh sockets folder with a short path (Unix socket paths are limited to about 100 bytes). */
export function tempSocketsFolder(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'svc-pc-'));
}

export interface ExampleOptions {
  readonly folder: string;
  readonly name: string;
  readonly pkg?: 'svc.proto.components.v1' | 'dapr.proto.components.v1';
  readonly reflection?: 'v1+v1alpha' | 'v1alpha';
  readonly withoutTransactions?: boolean;
}

export class ExampleComponent {
  output = '';
  readonly exited: Promise<void>;

  private constructor(
    readonly child: ChildProcess,
    readonly socketPath: string,
  ) {
    child.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** Starts the component and resolves once it printed that it listens (its socket exists and accepts). */
  static async start(opts: ExampleOptions): Promise<ExampleComponent> {
    const args = [EXAMPLE_COMPONENT_MAIN, '--name', opts.name, '--sockets-folder', opts.folder];
    if (opts.pkg) args.push('--package', opts.pkg);
    if (opts.reflection) args.push('--reflection', opts.reflection);
    if (opts.withoutTransactions) args.push('--without-transactions');
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const component = new ExampleComponent(child, path.join(opts.folder, `${opts.name}.sock`));
    await new Promise<void>((resolve, reject) => {
      const onData = () => {
        if (component.output.includes('listening on')) {
          child.stdout?.off('data', onData);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      void component.exited.then(() => reject(new Error(`example component exited before listening:\n${component.output}`)));
    });
    return component;
  }

  /** Crash (SIGKILL): the socket file stays behind, as after a real crash. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}

/**
 * A Unix socket server that is not a gRPC component: it accepts connections and then either never answers
 * (`silent`) or answers with bytes that are not HTTP/2 (`garbage`).
 */
export async function rogueSocket(socketPath: string, behaviour: 'silent' | 'garbage'): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    if (behaviour === 'garbage') socket.write('this is not HTTP/2\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
