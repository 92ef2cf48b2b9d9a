import { Counter, Histogram, type Registry } from 'prom-client';

/** Job metrics on the process registry (`svc_jobs_*`). */
export class JobMetrics {
  /** One per attempt at a firing: taken, failed (retried by the policy), dropped (given up), unreachable (retried). */
  readonly attempts: Counter<'outcome'>;
  /** How late a firing reached the app after its schedule point. */
  readonly lag: Histogram;

  constructor(registry: Registry) {
    this.attempts = new Counter({
      name: 'svc_jobs_attempts_total',
      help: 'Attempts to hand a job firing to the app, by outcome (taken, failed, dropped, unreachable)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.lag = new Histogram({
      name: 'svc_jobs_fire_lag_seconds',
      help: 'Time from a job firing being due until the app took it',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  }
}
