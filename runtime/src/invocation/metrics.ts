import { Counter, Histogram, type Registry } from 'prom-client';
import { RuntimeError } from '../errors/runtime-error.js';

/** The status label of a call that got no answer: svcd's error code. */
export const failureStatus = (err: unknown): string => (err instanceof RuntimeError ? err.code : 'ERROR');

/** The status label of a proxied gRPC call (HTTP calls are labelled with their numeric status). */
export const grpcStatusLabel = (code: number): string => `grpc-${code}`;

/** Service invocation metrics: calls made (by target and status) with their time to the answer's head, and calls served. */
export class InvocationMetrics {
  readonly #calls: Counter<'target' | 'status'>;
  readonly #latency: Histogram<'target'>;
  readonly #served: Counter<'caller' | 'status'>;

  constructor(registry: Registry) {
    this.#calls = new Counter({ name: 'svc_invocation_calls_total', help: 'Service invocation calls made, by target app id and answer status (an svcd error code when no answer came)', labelNames: ['target', 'status'], registers: [registry] });
    this.#latency = new Histogram({
      name: 'svc_invocation_call_seconds',
      help: 'Time from a service invocation call to its answer head, by target app id',
      labelNames: ['target'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    this.#served = new Counter({ name: 'svc_invocation_served_total', help: 'Service invocation calls served to other apps, by caller app id and the app answer status', labelNames: ['caller', 'status'], registers: [registry] });
  }

  called(target: string, status: number | string, seconds: number): void {
    this.#calls.inc({ target, status: String(status) });
    this.#latency.observe({ target }, seconds);
  }

  served(caller: string, status: number | string): void {
    this.#served.inc({ caller, status: String(status) });
  }
}
