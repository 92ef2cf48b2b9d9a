import http from 'node:http';
import { listenOn } from '../../util/listen-on.js';
import type { HttpApiHandler } from './app.js';

/** The HTTP API listener: start binds, stop stops accepting and waits for in-flight requests up to a grace period. */
export class HttpApiServer {
  #server: http.Server | undefined;

  constructor(
    private readonly handler: HttpApiHandler,
    private readonly host: string,
    private readonly port: number,
  ) {}

  async start(): Promise<number> {
    const server = http.createServer(this.handler);
    server.keepAliveTimeout = 65_000;
    this.#server = server;
    return listenOn(server, this.host, this.port);
  }

  async stop(graceMs: number): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    await closed;
    clearTimeout(timer);
  }
}
