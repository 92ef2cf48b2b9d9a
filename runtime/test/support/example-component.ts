/** Test helpers: the example pluggable component as a real child process, and misbehaving socket servers. */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestChildProcess } from './child-process.js';
import { tempFolder } from './temp-folders.js';

/** runtime/dist/test/support → examples/pluggable-component/dist/src/main.js (built by `npm run build`). */
export const EXAMPLE_COMPONENT_MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../examples/pluggable-component/dist/src/main.js');

/** A fresh sockets folder with a short path (Unix socket paths are limited to about 100 bytes). */
export function tempSocketsFolder(): string {
  return tempFolder('svc-pc-');
}

export interface ExampleOptions {
  readonly folder: string;
  readonly name: string;
  readonly pkg?: 'svc.proto.components.v1' | 'dapr.proto.components.v1';
  readonly reflection?: 'v1+v1alpha' | 'v1alpha';
  readonly withoutTransactions?: boolean;
  /** Runs the component as this user (and group) through `setpriv`, so its socket has another owner. */
  readonly runAsUid?: number;
}

/** The example component as a child process; `kill()` leaves its socket file behind, as after a real crash. */
export class ExampleComponent extends TestChildProcess {
  private constructor(
    child: ChildProcess,
    readonly socketPath: string,
  ) {
    super(child);
  }

  /** Starts the component and resolves once it printed that it listens (its socket exists and accepts). */
  static async start(opts: ExampleOptions): Promise<ExampleComponent> {
    const args = [EXAMPLE_COMPONENT_MAIN, '--name', opts.name, '--sockets-folder', opts.folder];
    if (opts.pkg) args.push('--package', opts.pkg);
    if (opts.reflection) args.push('--reflection', opts.reflection);
    if (opts.withoutTransactions) args.push('--without-transactions');
    const asUser = opts.runAsUid === undefined ? [] : ['setpriv', `--reuid=${opts.runAsUid}`, `--regid=${opts.runAsUid}`, '--clear-groups'];
    const [command, ...rest] = [...asUser, process.execPath, ...args] as [string, ...string[]];
    const child = spawn(command, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
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

/** The `setUp` / `tearDown` of a conformance suite run against the example component in a sockets folder of its own. */
export function exampleComponentHooks(opts: Omit<ExampleOptions, 'folder'>): { setUp: () => Promise<{ socketsFolder: string }>; tearDown: () => Promise<void> } {
  let component: ExampleComponent | undefined;
  return {
    setUp: async () => {
      const folder = tempSocketsFolder();
      component = await ExampleComponent.start({ ...opts, folder });
      return { socketsFolder: folder };
    },
    tearDown: async () => {
      await component?.stop();
    },
  };
}
