import { Counter, Gauge, type Registry } from 'prom-client';

/** Prometheus series of multi-host placement and routing. */
export class PlacementMetrics {
  readonly partitionsLost: Counter;
  readonly fencedCommits: Counter;
  readonly routedCalls: Counter<'outcome'>;

  constructor(registry: Registry, view: () => { owned: number; hosts: number }) {
    new Gauge({
      name: 'svc_actor_placement_partitions_owned',
      help: 'Ownership partitions this replica owns and serves',
      registers: [registry],
      collect() {
        this.set(view().owned);
      },
    });
    new Gauge({
      name: 'svc_actor_placement_hosts',
      help: 'Live replicas of this app in the placement view',
      registers: [registry],
      collect() {
        this.set(view().hosts);
      },
    });
    this.partitionsLost = new Counter({ name: 'svc_actor_placement_partitions_lost_total', help: 'Partitions this replica lost without a handover (lease lapsed or taken over)', registers: [registry] });
    this.fencedCommits = new Counter({ name: 'svc_actor_fenced_commits_total', help: 'Commits refused by the store because this replica no longer owned the partition', registers: [registry] });
    this.routedCalls = new Counter({ name: 'svc_actor_routed_calls_total', help: 'Actor calls sent to the replica that owns the actor, by outcome', labelNames: ['outcome'], registers: [registry] });
  }
}
