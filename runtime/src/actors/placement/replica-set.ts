/**
 * What the replica set (several svcd of one app; docs/workflow-engine.md "Several replicas") offers the workflow
 * engine built on its actors. On a single host it is trivial: everything is owned here and there are no peers.
 */
import type { Router, PeerCaller } from './routing.js';

export interface PeerWithWorkers {
  readonly hostId: string;
  readonly address: string;
}

export interface ReplicaSet {
  /** Runs a call where the instance's actor is owned (here, or on the owner through the internal port). */
  readonly router: Router;
  readonly peers: PeerCaller;
  /** Is this instance owned by this replica right now? */
  ownsHere(instanceId: string): boolean;
  /** Other live replicas that have workflow workers connected. */
  peersWithWorkers(): readonly PeerWithWorkers[];
  /** Called whenever ownership partitions leave this replica (handed over or lost). */
  onPartitionsLeft(listener: (partitions: ReadonlySet<number>) => void): void;
  /** Resolves at the next change of the replica set's view (or after `timeoutMs`, or on abort). */
  changed(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** The number of workers connected here changed: tell the other replicas soon. */
  workersChanged(): void;
}
