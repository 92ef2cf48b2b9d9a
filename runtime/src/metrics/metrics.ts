import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry, collectDefaultMetrics } from 'prom-client';

/** One Prometheus registry per process, passed to the parts that record metrics; served on the metrics port. */
export function createMetricsRegistry(appId: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app_id: appId });
  collectDefaultMetrics({ register: registry, prefix: 'svc_' });
  return registry;
}

export class MetricsServer {
  #server: http.Server | undefined;

  constructor(
    private readonly registry: Registry,
    private readonly host: string,
    private readonly port: number,
  ) {}

  async start(): Promise<number> {
    const server = http.createServer((req, res) => {
      if (req.method !== 'GET' || (req.url !== '/metrics' && req.url !== '/')) {
        res.writeHead(404).end();
        return;
      }
      this.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(text),
        (err: Error) => res.writeHead(500).end(err.message),
      );
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
