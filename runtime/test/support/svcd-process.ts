import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestChildProcess } from './child-process.js';
import { freePort } from './ports.js';
import { removeTempFolder, tempFolder, tempFolderHolding } from './temp-folders.js';

/** svcd as users start it: the launcher of the bundle (dist/test/support → bin/svcd.js). */
export const SVCD_MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/svcd.js');

export interface SvcdOptions {
  appId?: string;
  /** YAML documents written as files into a fresh resources folder: file name → content. */
  resources?: Record<string, string>;
  /** Use an existing resources folder instead (for restarts). */
  resourcesPath?: string;
  dataDir?: string;
  socketsFolder?: string;
  env?: Record<string, string>;
  args?: string[];
  /** Reuse ports (restart tests). */
  ports?: { http: number; grpc: number; metrics: number };
  /** Wait until /v1.0/healthz answers 204 (default true). */
  waitReady?: boolean;
  readyTimeoutMs?: number;
  /** The svcd launcher to run (default SVCD_MAIN): a bench compares another checkout's build on the same data. */
  svcdMain?: string;
  /** Node flags before the launcher, e.g. `--snapshot-blob <file>` (with `svcdMain: 'svcd'`, scripts/make-snapshot.cjs). */
  nodeArgs?: string[];
}

/**
 * A real svcd child process on free loopback ports, with its output kept for assertions and failure reports.
 * Its resources, data and sockets live in a temporary folder: `dispose()` removes it (and the folder of an earlier
 * svcd whose data or resources it reused); whatever is not disposed is removed when the test process exits.
 */
export class SvcdProcess extends TestChildProcess {
  private constructor(
    child: ChildProcess,
    readonly ports: { http: number; grpc: number; metrics: number },
    readonly resourcesPath: string,
    readonly dataDir: string,
    private readonly folders: readonly string[],
  ) {
    super(child);
  }

  get httpUrl(): string {
    return `http://127.0.0.1:${this.ports.http}`;
  }

  get grpcAddress(): string {
    return `127.0.0.1:${this.ports.grpc}`;
  }

  static async start(opts: SvcdOptions = {}): Promise<SvcdProcess> {
    // Taken over from an earlier svcd before this one makes its own: a restart reuses that svcd's data.
    const inherited = [tempFolderHolding(opts.dataDir), tempFolderHolding(opts.resourcesPath)];
    const work = tempFolder('svcd-test-');
    let resourcesPath = opts.resourcesPath;
    if (!resourcesPath) {
      resourcesPath = path.join(work, 'resources');
      mkdirSync(resourcesPath);
      for (const [name, text] of Object.entries(opts.resources ?? {})) writeFileSync(path.join(resourcesPath, name), text);
    }
    const dataDir = opts.dataDir ?? path.join(work, 'data');
    const folders = [...new Set([work, ...inherited.filter((dir) => dir !== undefined)])];
    // Ports chosen here are free when chosen, not when svcd binds them: another process may take one in between
    // (ephemeral ports come from the same range). Such a start is retried on fresh ports.
    for (let attempt = 1; ; attempt++) {
      const ports = opts.ports ?? { http: await freePort(), grpc: await freePort(), metrics: await freePort() };
      const args = [
        // Node flags for svcd only, e.g. SVCD_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a bench run.
        ...(process.env.SVCD_NODE_ARGS?.split(' ').filter((a) => a !== '') ?? []),
        ...(opts.nodeArgs ?? []),
        opts.svcdMain ?? SVCD_MAIN,
        '--app-id', opts.appId ?? 'testapp',
        '--http-port', String(ports.http),
        '--grpc-port', String(ports.grpc),
        '--metrics-port', String(ports.metrics),
        '--resources-path', resourcesPath,
        '--data-dir', dataDir,
        '--components-sockets-folder', opts.socketsFolder ?? path.join(work, 'sockets'),
        '--log-as-json',
        ...(opts.args ?? []),
      ];
      const child = spawn(process.execPath, args, { env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      const svcd = new SvcdProcess(child, ports, resourcesPath, dataDir, folders);
      if (opts.waitReady === false) return svcd;
      try {
        await svcd.waitReady(opts.readyTimeoutMs ?? 20_000);
        return svcd;
      } catch (err) {
        const portTaken = /is already in use/.test(svcd.output) && !opts.ports && attempt < 3;
        if (!portTaken) throw err;
      }
    }
  }

  /** Polls /v1.0/healthz until 204; fails early with the process output if svcd exits. */
  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => (exited = true));
    while (Date.now() < deadline) {
      if (exited) throw new Error(`svcd exited before it was ready:\n${this.output}`);
      try {
        const res = await fetch(`${this.httpUrl}/v1.0/healthz`);
        if (res.status === 204) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`svcd was not ready within ${timeoutMs} ms:\n${this.output}`);
  }

  /** HTTP call against the API; `body` objects are JSON-encoded, strings and Buffers sent as they are. */
  async request(method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' || Buffer.isBuffer(body) ? (body as string) : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    return fetch(`${this.httpUrl}${urlPath}`, init);
  }

  /**
   * Stops svcd (if it still runs) and removes its temporary folder, with the data in it. Call it on the LAST
   * svcd of a test: a restarted svcd that reuses this one's `dataDir` needs that folder until it is disposed.
   */
  async dispose(): Promise<void> {
    await this.stop();
    for (const dir of this.folders) removeTempFolder(dir);
  }
}
