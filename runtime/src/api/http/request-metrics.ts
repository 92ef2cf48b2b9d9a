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
  return (method, route, status, seconds) => {
    requests.inc({ method, route, status: String(status) });
    duration.observe({ method, route }, seconds);
  };
}
