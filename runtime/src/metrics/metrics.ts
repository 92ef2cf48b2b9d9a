import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * How often the event loop's delay is sampled for `svc_nodejs_eventloop_lag_*`. prom-client's default of 10 ms is
 * a timer that wakes svcd 100 times a second forever: two thirds of an idle svcd's CPU (0.8 % of a core against
 * 0.3 % without it, docs/performance.md). Ten samples a second still show every stall longer than 100 ms and
 * the shape of shorter ones.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * One Prometheus registry per process, passed to the parts that record metrics; served on the metrics port. The
 * process's own series (CPU, memory, event loop, GC) are collected only when `served`: with the metrics server
 * off nobody can read them, and their event-loop sampler would still wake svcd.
 */
export function createMetricsRegistry(appId: string, served: boolean): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app_id: appId });
  if (served) collectDefaultMetrics({ register: registry, prefix: 'svc_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
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
