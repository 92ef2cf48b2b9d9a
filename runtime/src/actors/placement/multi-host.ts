import { randomUUID } from 'node:crypto';
import type { Registry } from 'prom-client';
import { PeerClients, PeerUnreachableError } from '../../internal/peer-client.js';
import { addPeerService } from '../../internal/peer-server.js';
import type { InternalServices } from '../../internal/internal-server.js';
import type { Logger } from '../../log/logger.js';
import type { ReplicaSet } from './replica-set.js';
import { SingleHostPlacement } from '../placement.js';
import { LocalActorRuntime } from '../runtime.js';
import { PlacementMetrics } from './metrics.js';
import { actorPeerHandlers } from './peer-handlers.js';
import { RoutedActorRuntime } from './routed-runtime.js';
import { Router, type PeerCaller } from './routing.js';
import { StorePlacement } from './store-placement.js';
import type { MultiHostStore } from '../../state/placement-store.js';
import type { TransactionalStateStore } from '../../components/contracts/state-store.js';

type PeerHandler = (body: unknown, signal: AbortSignal) => Promise<unknown>;

export interface ActorPlacementOptions {
  readonly appId: string;
  /** The actor state store's component name, for errors. */
  readonly storeName?: string;
  readonly log: Logger;
  readonly metrics: Registry;
  readonly idleTimeoutMs: number;
  /** The internal port: the peer service is added to it; `address()` is how other replicas dial it, once started. */
  readonly internal: { readonly services: InternalServices; readonly address: () => string };
  readonly leaseTtlMs: number;
  readonly heartbeatIntervalMs: number;
  /** Workflow workers connected to this replica now (advertised so an owner without workers hands work here). */
  readonly workers: () => number;
  /** Further internal-port methods (the workflow engine's), bound late: the engine starts after the actors. */
  readonly peerHandlers: Record<string, PeerHandler>;
  readonly shutdownGraceMs: number;
}

/** The actor runtime of one svcd and how it meets the other replicas (if any). */
export interface PlacedRuntime {
  readonly local: LocalActorRuntime;
  /** What every client uses: calls run where their actor is owned. */
  readonly routed: RoutedActorRuntime;
  readonly replicas: ReplicaSet;
  start(): Promise<void>;
  stop(): Promise<void>;
  metadata(): Record<string, unknown>;
}

/** How long a call waits for its actor to have a reachable owner: a failover is one lease TTL plus a heartbeat. */
const routeTimeout = (o: Pick<ActorPlacementOptions, 'leaseTtlMs' | 'heartbeatIntervalMs'>) => 2 * o.leaseTtlMs + 2 * o.heartbeatIntervalMs + 5_000;

/** Single host (SQLite, in-memory, pluggable stores): everything is local; the internal port serves no actor calls. */
export function singleHostRuntime(store: TransactionalStateStore, o: ActorPlacementOptions): PlacedRuntime {
  const placement = new SingleHostPlacement();
  const local = new LocalActorRuntime({ appId: o.appId, store, storeName: o.storeName, log: o.log, metrics: o.metrics, idleTimeoutMs: o.idleTimeoutMs, placement });
  const peers: PeerCaller = { call: () => Promise.reject(new Error('single host: there are no peers')) };
  const router = new Router({ placement, peers, unreachable: () => false, routeTimeoutMs: routeTimeout(o) });
  return {
    local,
    routed: new RoutedActorRuntime(local, router),
    replicas: {
      router,
      peers,
      ownsHere: () => true,
      peersWithWorkers: () => [],
      onPartitionsLeft: (l) => local.onPartitionsLeft(l),
      changed: (ms, signal) => placement.changed(ms, signal),
      workersChanged: () => undefined,
    },
    start: () => local.start(),
    stop: () => local.stop(),
    metadata: () => placement.metadata(),
  };
}

/**
 * Several replicas on a store that can arbitrate (Redis, PostgreSQL): placement leases and partition ownership in
 * the store, fenced commits, and the internal gRPC server other replicas route calls to (authenticated with the
 * app's token, which the store keeps).
 */
export async function multiHostRuntime(store: MultiHostStore, o: ActorPlacementOptions): Promise<PlacedRuntime> {
  const backend = store.placementBackend(o.appId);
  const { token } = await backend.init();
  const hostId = randomUUID();
  const startedAt = Date.now();
  const log = o.log.child({ part: 'placement' });
  // The closures below run after construction (heartbeats, scrapes), when both consts exist.
  const metrics: PlacementMetrics = new PlacementMetrics(o.metrics, (): { owned: number; hosts: number } => ({ owned: placement.ownedCount, hosts: placement.hostCount }));
  const placement: StorePlacement = new StorePlacement({
    backend,
    host: () => ({ hostId, address: o.internal.address(), actorTypes: runtime.registeredTypes(), workers: o.workers(), startedAt }),
    leaseTtlMs: o.leaseTtlMs,
    heartbeatIntervalMs: o.heartbeatIntervalMs,
    log,
    metrics,
  });
  const runtime = new LocalActorRuntime({ appId: o.appId, store, storeName: o.storeName, log: o.log, metrics: o.metrics, idleTimeoutMs: o.idleTimeoutMs, placement, onFenced: () => metrics.fencedCommits.inc() });
  const peers = new PeerClients({ token: () => token, log });
  const router = new Router({ placement, peers, unreachable: (err) => err instanceof PeerUnreachableError, routeTimeoutMs: routeTimeout(o), metrics });
  addPeerService(o.internal.services, { token: () => token, handlers: { ...actorPeerHandlers(runtime), ...o.peerHandlers }, log });
  return {
    local: runtime,
    routed: new RoutedActorRuntime(runtime, router),
    replicas: {
      router,
      peers,
      ownsHere: (instanceId) => placement.lookup('', instanceId).local,
      peersWithWorkers: () => placement.peersWithWorkers(),
      onPartitionsLeft: (l) => runtime.onPartitionsLeft(l),
      changed: (ms, signal) => placement.changed(ms, signal),
      workersChanged: () => placement.suspect(),
    },
    start: async () => {
      log.info({ hostId, address: o.internal.address(), store: backend.kind }, 'placement: joining the replicas of this app');
      await runtime.start();
    },
    stop: async () => {
      await runtime.stop();
      peers.close();
    },
    metadata: () => placement.metadata(),
  };
}
