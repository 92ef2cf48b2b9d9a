/**
 * The workers of other replicas, as the dispatcher sees them: one remote connection per replica that advertises
 * connected workers, kept in step with the placement view (woken by its changes). The dispatcher uses a remote
 * connection only while no worker of this replica is connected (dispatcher.ts, "Several replicas"); an item sent
 * over one is offered to that replica, and a refusal or failure drops the connection, so what it held goes back
 * to the queue.
 */
import type { ReplicaSet } from '../actors/placement/replica-set.js';
import { ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import type { WorkDispatcher } from './dispatcher.js';
import { WORKFLOW_PEER_METHODS } from './peer-methods.js';
import type { WorkerConnection } from './work-items.js';

/** How often the view is looked at again when no change woke the follower. */
const RECHECK_MS = 5_000;

export class PeerWorkers {
  readonly #connections = new Map<string, WorkerConnection>();
  #nextId = -1;

  constructor(
    private readonly replicas: ReplicaSet,
    private readonly dispatcher: WorkDispatcher,
    private readonly log: Logger,
  ) {}

  /** Follows the placement view until `signal` aborts. */
  async follow(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const wanted = new Map(this.replicas.peersWithWorkers().map((p) => [p.hostId, p]));
      for (const [hostId, conn] of this.#connections) {
        if (!wanted.has(hostId)) this.#drop(hostId, conn);
      }
      for (const peer of wanted.values()) {
        if (!this.#connections.has(peer.hostId)) this.#add(peer.hostId, peer.address);
      }
      await this.replicas.changed(RECHECK_MS, signal);
    }
  }

  /** At shutdown the dispatcher closes every connection itself: a late answer must not disconnect one again. */
  forgetAll(): void {
    this.#connections.clear();
  }

  #add(hostId: string, address: string): void {
    const conn: WorkerConnection = {
      id: this.#nextId--,
      remote: true,
      send: (item) => {
        this.replicas.peers.call<{ accepted: boolean }>(address, WORKFLOW_PEER_METHODS.offer, item).then(
          (r) => {
            if (!r.accepted) this.#drop(hostId, conn);
          },
          (err: unknown) => {
            this.log.debug({ peer: address, err: ensureError(err).message }, 'handing a work item to another replica failed');
            this.#drop(hostId, conn);
          },
        );
        return true;
      },
      close: () => undefined,
    };
    this.#connections.set(hostId, conn);
    this.dispatcher.connect(conn);
  }

  /** What that replica held goes back to the queue (and to another worker); the view may bring it back later. */
  #drop(hostId: string, conn: WorkerConnection): void {
    if (this.#connections.get(hostId) !== conn) return;
    this.#connections.delete(hostId);
    this.dispatcher.disconnect(conn);
  }
}
