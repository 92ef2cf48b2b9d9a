/**
 * An HTTP app that takes job firings as the reference system hands them over (`POST /job/<name>`), records each
 * (name, body, content type, when) and answers 200, or 500 for the names told to fail. `/dapr/*` answers 404 (no
 * actors, subscriptions or configuration), so svcd starts at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JobFiring {
  readonly name: string;
  readonly body: string;
  readonly contentType: string | undefined;
  readonly at: number;
}

export class JobApp {
  readonly firings: JobFiring[] = [];
  /** Names whose firings answer 500. */
  readonly failing = new Set<string>();
  #server: http.Server | undefined;
  #port = 0;

  get port(): number {
    return this.#port;
  }

  /** Listens on `port` (0: a free one). */
  async start(port = 0): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const match = /^\/job\/(.+)$/.exec(req.url ?? '');
        if (req.method !== 'POST' || !match) {
          res.statusCode = 404;
          return res.end();
        }
        const name = decodeURIComponent(match[1]!);
        this.firings.push({ name, body: Buffer.concat(chunks).toString('utf8'), contentType: req.headers['content-type'], at: Date.now() });
        res.statusCode = this.failing.has(name) ? 500 : 200;
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.#server = server;
    this.#port = (server.address() as AddressInfo).port;
  }

  of(name: string): JobFiring[] {
    return this.firings.filter((f) => f.name === name);
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
