import { Counter, Histogram, type Registry } from 'prom-client';

/** Pub/sub metrics on the process registry (`svc_pubsub_*`). */
export class PubSubMetrics {
  readonly published: Counter<'pubsub' | 'topic' | 'success'>;
  /** Every delivery attempt's outcome: success, retry (the app asked, failed or timed out), drop, expired. */
  readonly delivered: Counter<'pubsub' | 'topic' | 'outcome'>;
  readonly deadLettered: Counter<'pubsub' | 'topic'>;
  readonly deliveryLatency: Histogram<'pubsub' | 'topic'>;

  constructor(registry: Registry) {
    this.published = new Counter({
      name: 'svc_pubsub_published_total',
      help: 'Messages published through the API, by pub/sub, topic and whether the broker took them',
      labelNames: ['pubsub', 'topic', 'success'],
      registers: [registry],
    });
    this.delivered = new Counter({
      name: 'svc_pubsub_deliveries_total',
      help: 'Delivery attempts to the app by outcome: success, retry (asked, failed or timed out), drop, expired',
      labelNames: ['pubsub', 'topic', 'outcome'],
      registers: [registry],
    });
    this.deadLettered = new Counter({
      name: 'svc_pubsub_dead_lettered_total',
      help: 'Messages moved to their subscription dead-letter topic',
      labelNames: ['pubsub', 'topic'],
      registers: [registry],
    });
    this.deliveryLatency = new Histogram({
      name: 'svc_pubsub_delivery_latency_seconds',
      help: 'Time the app took to answer a delivery',
      labelNames: ['pubsub', 'topic'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }
}
