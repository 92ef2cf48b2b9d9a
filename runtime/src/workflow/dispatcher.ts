/**
 * Hands work items to connected SDK workers and matches their answers. Transport-free: the gRPC service wraps
 * each `GetWorkItems` stream in a `WorkerConnection`.
 *
 * - At most one orchestration item per instance exists here (queued or with a worker): the engine never runs two
 *   turns of one instance at once.
 * - Items wait in a FIFO while no worker can take them and go out as soon as one connects or has room; several
 *   workers share the work round robin, each holding at most `maxPerWorker` unanswered items (SDK workers drop
 *   what exceeds their own local queue).
 * - When a worker disconnects, the items it held go back to the head of the queue and are handed out again.
 * - Everything here is in memory: after a crash the actors' lease reminders offer the work again.
 * - Several replicas: a replica with no worker of its own hands its items to a replica that has workers (a
 *   `remote` connection, used only while no local worker is connected); the items it receives that way
 *   (`localOnly`) go to its own workers only, never further. The answer comes back to the owner as a routed
 *   actor call, which releases the owner's copy (`releaseAnswered*`).
 */
import type { TurnPlan } from './instance.js';

export interface OrchestrationItem extends TurnPlan {
  kind: 'orchestration';
  instanceId: string;
}

export interface ActivityItem {
  kind: 'activity';
  instanceId: string;
  generation: number;
  taskId: number;
  name: string;
  input?: string;
}

export type WorkItem = OrchestrationItem | ActivityItem;

export interface WorkerConnection {
  readonly id: number;
  /** Another replica's workers (see above); local SDK streams leave it unset. */
  readonly remote?: boolean;
  /** Writes the item to the worker; false when the connection is already gone. */
  send(item: WorkItem): boolean;
  /** Ends the connection cleanly (status OK). */
  close(): void;
}

interface Held {
  item: WorkItem;
  worker?: WorkerConnection;
  claimed?: boolean;
  /** Handed over by the owning replica: only this replica's own workers may take it. */
  localOnly?: boolean;
}

const DEFAULT_MAX_PER_WORKER = 100;

const itemKey = (item: WorkItem) => (item.kind === 'orchestration' ? `o|${item.instanceId}` : `a|${item.instanceId}|${item.taskId}`);

export interface DispatcherEvents {
  dispatched?(item: WorkItem): void;
  workersChanged?(count: number): void;
}

export class WorkDispatcher {
  readonly #held = new Map<string, Held>();
  readonly #queue: string[] = [];
  /** Items other replicas handed over (local workers only). */
  readonly #localQueue: string[] = [];
  readonly #workers: WorkerConnection[] = [];
  readonly #load = new Map<number, number>();
  #next = 0;

  constructor(
    private readonly maxPerWorker = DEFAULT_MAX_PER_WORKER,
    private readonly events: DispatcherEvents = {},
  ) {}

  /** Local SDK workers (remote connections to other replicas not counted). */
  get workerCount(): number {
    return this.#workers.filter((w) => !w.remote).length;
  }

  /** Is an orchestration item of this instance queued or with a worker? */
  hasOrchestration(instanceId: string): boolean {
    return this.#held.has(`o|${instanceId}`);
  }

  hasActivity(instanceId: string, taskId: number): boolean {
    return this.#held.has(`a|${instanceId}|${taskId}`);
  }

  /** Queues an item; false (and nothing queued) when an item with the same key is already here. */
  offer(item: WorkItem): boolean {
    return this.#queueItem(item, false);
  }

  #queueItem(item: WorkItem, localOnly: boolean): boolean {
    const k = itemKey(item);
    if (this.#held.has(k)) return false;
    this.#held.set(k, { item, ...(localOnly ? { localOnly: true } : {}) });
    (localOnly ? this.#localQueue : this.#queue).push(k);
    this.#pump();
    return true;
  }

  /**
   * An item the owning replica handed over, for local workers only. The owner sends an instance's next batch as
   * soon as it recorded the answer to the previous one, which may be before this replica let go of the copy it
   * was answering (claimed): such a copy, or one still queued, gives way to the new item. A copy with a worker
   * stays: true for the same activity (it is running here), false for an orchestration batch (the owner offers
   * it again later).
   */
  offerForwarded(item: WorkItem): boolean {
    const k = itemKey(item);
    const held = this.#held.get(k);
    if (held?.worker) return item.kind === 'activity';
    if (held) {
      this.#held.delete(k);
      if (!held.claimed) this.#dequeue(k, held);
    }
    return this.#queueItem(item, true);
  }

  /** Withdraws a queued orchestration item not yet sent to a worker (terminate must not wait for a worker). */
  withdrawQueuedOrchestration(instanceId: string): boolean {
    const k = `o|${instanceId}`;
    const held = this.#held.get(k);
    if (!held || held.worker || held.claimed) return false;
    this.#held.delete(k);
    this.#dequeue(k, held);
    return true;
  }

  /** Withdraws queued items (not yet with a worker) of instances this replica no longer owns. */
  withdrawQueued(instance: (instanceId: string) => boolean): void {
    for (const [k, held] of this.#held) {
      if (held.worker || held.claimed || held.localOnly || !instance(held.item.instanceId)) continue;
      this.#held.delete(k);
      this.#dequeue(k, held);
    }
  }

  /** Forgets queued or sent activity items of cancelled work (their results would be dropped anyway). */
  dropActivity(instanceId: string, taskId: number): void {
    this.#take(`a|${instanceId}|${taskId}`);
  }

  /**
   * Claims the item a worker answered: it leaves its worker (a disconnect no longer hands it out again) but stays
   * here, so no second item for the same instance/task is queued while the answer is being recorded. Undefined
   * for an unknown, stale or already claimed answer. Pair with `release`.
   */
  claimOrchestration(instanceId: string): OrchestrationItem | undefined {
    return this.#claim(`o|${instanceId}`) as OrchestrationItem | undefined;
  }

  claimActivity(instanceId: string, taskId: number): ActivityItem | undefined {
    return this.#claim(`a|${instanceId}|${taskId}`) as ActivityItem | undefined;
  }

  /** Forgets a claimed item once its answer is recorded (or could not be). */
  release(item: WorkItem): void {
    const k = itemKey(item);
    if (this.#held.get(k)?.item === item) this.#held.delete(k);
  }

  /**
   * The owner is recording an orchestration answer: forget the item it answers — claimed here, or held by another
   * replica that delivered it — so the next batch may go out.
   */
  releaseAnsweredOrchestration(instanceId: string): void {
    this.#releaseAnswered(`o|${instanceId}`);
  }

  /** Like `releaseAnsweredOrchestration` for an activity answered through another replica. */
  releaseAnsweredActivity(instanceId: string, taskId: number): void {
    const k = `a|${instanceId}|${taskId}`;
    if (this.#held.get(k)?.worker?.remote) this.#take(k);
  }

  #releaseAnswered(k: string): void {
    const held = this.#held.get(k);
    if (held?.claimed) this.#held.delete(k);
    else if (held?.worker?.remote) this.#take(k);
  }

  connect(worker: WorkerConnection): void {
    this.#workers.push(worker);
    this.#load.set(worker.id, 0);
    this.events.workersChanged?.(this.workerCount);
    this.#pump();
  }

  /** The worker is gone: what it held is handed out again, first. */
  disconnect(worker: WorkerConnection): void {
    const i = this.#workers.indexOf(worker);
    if (i < 0) return;
    this.#workers.splice(i, 1);
    this.#load.delete(worker.id);
    const back: string[] = [];
    const backLocal: string[] = [];
    for (const [k, held] of this.#held) {
      if (held.worker === worker) {
        delete held.worker;
        (held.localOnly ? backLocal : back).push(k);
      }
    }
    this.#queue.unshift(...back);
    this.#localQueue.unshift(...backLocal);
    this.events.workersChanged?.(this.workerCount);
    this.#pump();
  }

  /** Ends every worker stream cleanly (shutdown). Held items stay for the actors' leases after restart. */
  closeAll(): void {
    for (const w of this.#workers.splice(0)) w.close();
    this.#load.clear();
    this.events.workersChanged?.(0);
  }

  #claim(k: string): WorkItem | undefined {
    const held = this.#held.get(k);
    if (!held || held.claimed) return undefined;
    if (!held.worker) return undefined; // queued, never sent: not an answer to anything
    this.#unassign(held);
    held.claimed = true;
    return held.item;
  }

  #unassign(held: Held): void {
    if (!held.worker) return;
    this.#load.set(held.worker.id, Math.max(0, (this.#load.get(held.worker.id) ?? 1) - 1));
    delete held.worker;
    this.#pump();
  }

  #take(k: string): void {
    const held = this.#held.get(k);
    if (!held) return;
    this.#held.delete(k);
    if (held.worker) this.#unassign(held);
    else this.#dequeue(k, held);
  }

  #dequeue(k: string, held: Held): void {
    const queue = held.localOnly ? this.#localQueue : this.#queue;
    const qi = queue.indexOf(k);
    if (qi >= 0) queue.splice(qi, 1);
  }

  #pump(): void {
    this.#pumpQueue(this.#localQueue, true);
    this.#pumpQueue(this.#queue, false);
  }

  #pumpQueue(queue: string[], localOnly: boolean): void {
    while (queue.length > 0) {
      const worker = this.#pickWorker(localOnly);
      if (!worker) return;
      const k = queue.shift() as string;
      const held = this.#held.get(k);
      if (!held) continue;
      held.worker = worker;
      this.#load.set(worker.id, (this.#load.get(worker.id) ?? 0) + 1);
      if (!worker.send(held.item)) {
        // The stream died under us: its disconnect puts this item back.
        continue;
      }
      this.events.dispatched?.(held.item);
    }
  }

  /** Local workers round robin; other replicas only while no local worker is connected at all. */
  #pickWorker(localOnly: boolean): WorkerConnection | undefined {
    const hasLocal = this.#workers.some((w) => !w.remote);
    for (let n = 0; n < this.#workers.length; n++) {
      const w = this.#workers[(this.#next + n) % this.#workers.length] as WorkerConnection;
      if (w.remote && (localOnly || hasLocal)) continue;
      if ((this.#load.get(w.id) ?? 0) < this.maxPerWorker) {
        this.#next = (this.#next + n + 1) % this.#workers.length;
        return w;
      }
    }
    return undefined;
  }
}
