import { Counter, Histogram, type Registry } from 'prom-client';

/** One answered HTTP API request: the route pattern (not the path: bounded label values), the final status. */
export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;

/** `svc_http_server_requests_total{method,route,status}` and `svc_http_server_request_duration_seconds{method,route}`. */
export function httpRequestMetrics(registry: Registry): RequestObserver {
  const requests = new Counter({
    name: 'svc_http_server_requests_total',
    help: 'HTTP API requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'svc_http_server_request_duration_seconds',
    help: 'Time to answer an HTTP API request, by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  // One child per label set, found by a string key: prom-client hashes a label object on every call otherwise,
  // which was a tenth of a small request's CPU.
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(v: number): void }>();
  return (method, route, status, seconds) => {
    const key = `${method} ${route}`;
    const counterKey = `${key} ${status}`;
    let counter = counters.get(counterKey);
    if (!counter) counters.set(counterKey, (counter = requests.labels(method, route, String(status))));
    counter.inc();
    let timer = timers.get(key);
    if (!timer) timers.set(key, (timer = duration.labels(method, route)));
    timer.observe(seconds);
  };
}
