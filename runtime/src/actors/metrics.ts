import { Gauge, Histogram, type Registry } from 'prom-client';
import type { ActorTypeStatus } from './types.js';

export type TurnKind = 'activate' | 'method' | 'reminder' | 'timer';

/** The actor runtime's Prometheus series. */
export class ActorMetrics {
  readonly #turnSeconds: Histogram<'actor_type' | 'kind' | 'outcome'>;
  readonly #reminderLagSeconds: Histogram<'actor_type'>;

  constructor(registry: Registry, status: () => ActorTypeStatus[]) {
    new Gauge({
      name: 'svc_actor_active_actors',
      help: 'Active (activated, not yet deactivated) actors per type',
      labelNames: ['actor_type'],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of status()) this.set({ actor_type: s.type }, s.count);
      },
    });
    this.#turnSeconds = new Histogram({
      name: 'svc_actor_turn_duration_seconds',
      help: 'Actor turn latency from start of the turn to commit of its writes',
      labelNames: ['actor_type', 'kind', 'outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
    this.#reminderLagSeconds = new Histogram({
      name: 'svc_actor_reminder_lag_seconds',
      help: 'Reminder lag: time the reminder turn started minus its due time',
      labelNames: ['actor_type'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    });
  }

  turn(type: string, kind: TurnKind, ok: boolean, ms: number): void {
    this.#turnSeconds.observe({ actor_type: type, kind, outcome: ok ? 'ok' : 'error' }, ms / 1000);
  }

  reminderLag(type: string, ms: number): void {
    this.#reminderLagSeconds.observe({ actor_type: type }, Math.max(0, ms) / 1000);
  }
}
