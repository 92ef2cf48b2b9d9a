import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the app saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly bytes: number;
  readonly text: string;
}

/**
 * A plain HTTP app for invocation tests. It answers every request with JSON describing it (method, url, headers,
 * body size, the first KiB of the body), except:
 * - `/status/<n>`: that status, with an `x-app` header;
 * - `/fail-times/<n>/<key>`: 503 for the first n calls of that key, then 200;
 * - `/stream/<n>`: n chunks of 64 KiB, 50 ms apart;
 * - `/slow/<ms>`: 200 after that long;
 * - `/relay/<app-id>/<path>`: calls `<path>` of that app through its own sidecar (`sidecarPort`), answering with
 *   what came back.
 */
export class EchoApp {
  readonly seen: SeenRequest[] = [];
  readonly #failures = new Map<string, number>();
  #server: http.Server | undefined;
  port = 0;
  /** Its sidecar's HTTP port, for `/relay`. */
  sidecarPort = 0;

  async start(): Promise<void> {
    const server = http.createServer((req, res) => this.#answer(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((resolve) => this.#server?.close(resolve));
  }

  #answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    let bytes = 0;
    const head: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      if (bytes < 1024) head.push(c);
      bytes += c.length;
    });
    req.on('end', () => {
      const url = req.url ?? '/';
      const seen: SeenRequest = { method: req.method ?? '', url, headers: req.headers, bytes, text: Buffer.concat(head).toString('utf8', 0, 1024) };
      this.seen.push(seen);
      // Under `/public` as well, for access-control tests that allow only that prefix.
      const parts = url.split('?')[0]!.replace(/^\/public\//, '/').split('/');
      if (parts[1] === 'status') {
        res.writeHead(Number(parts[2]), { 'content-type': 'text/plain', 'x-app': 'echo' });
        res.end(`status ${parts[2]}`);
        return;
      }
      if (parts[1] === 'fail-times') {
        const key = parts[3] ?? '';
        const failed = this.#failures.get(key) ?? 0;
        this.#failures.set(key, failed + 1);
        res.writeHead(failed < Number(parts[2]) ? 503 : 200, { 'content-type': 'text/plain' });
        res.end(`call ${failed + 1}`);
        return;
      }
      if (parts[1] === 'relay') {
        const [app, ...rest] = parts.slice(2);
        void fetch(`http://127.0.0.1:${this.sidecarPort}/v1.0/invoke/${app}/method/${rest.join('/')}`).then(async (answer) => {
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
          res.end(Buffer.from(await answer.arrayBuffer()));
        });
        return;
      }
      if (parts[1] === 'slow') {
        setTimeout(() => res.end('slow'), Number(parts[2])).unref();
        return;
      }
      if (parts[1] === 'stream') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        let left = Number(parts[2]);
        const timer = setInterval(() => {
          if (left-- <= 0 || res.destroyed) {
            clearInterval(timer);
            res.end();
          } else res.write(Buffer.alloc(64 * 1024, 1));
        }, 50);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-app': 'echo' });
      res.end(JSON.stringify(seen));
    });
  }
}

/**
 * A Configuration whose name resolution is a SQLite registry file of the test's own (not ~/.svc), so tests never
 * find each other's sidecars; `extra` is more of the spec (accessControl…), as YAML lines indented by 2.
 */
export function invocationConfiguration(registryFile: string, extra = ''): string {
  return `apiVersion: svc.io/v1alpha1
kind: Configuration
metadata:
  name: invocation
spec:
  nameResolution:
    component: sqlite
    configuration:
      path: ${registryFile}
${extra}`;
}
