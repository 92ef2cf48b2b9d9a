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
 * - A hung worker must not keep its work for ever (a deadlocked SDK process keeps its stream open). A worker that
 *   leaves an orchestration batch unanswered past the workflow-task timeout, or whose stream stays blocked by flow
 *   control that long, is unresponsive: everything it holds goes back to the head of the queue (activities too: a
 *   worker that cannot answer a batch in seconds is not running its activities either; at worst one runs twice, as
 *   after any worker failure) and it is offered nothing more until it answers again. Its stream stays open, so a
 *   slow but live worker needs no reconnect; its late answers are stale (their token is no longer current).
 *   Activities have no timeout of their own (they may run for hours): a dead connection ends through keepalive.
 * - Every hand-out carries a completion token (the protocol's `completionToken`): an answer that echoes another
 *   token is stale (the item was handed out again since) and ignored. SDKs that echo no token are matched by
 *   connection instead: only the client the item was sent to may answer it.
 * - Work goes only to workers that can run it. The protocol has no way to say what a worker registered, so the
 *   dispatcher learns it: a worker that answers "not registered" is not offered that name again, and the item
 *   goes to another worker; only when every connected worker refused it is the refusal recorded.
 * - Everything here is in memory: after a crash the actors' lease reminders offer the work again. While no worker
 *   is connected anywhere, orchestration batches are held by their instance ids alone (dormant-batches.ts) and
 *   built again when workers have room for them; batches offered after a worker came may pass them.
 * - Several replicas: a replica with no worker of its own hands its items to a replica that has workers (a
 *   `remote` connection, used only while no local worker is connected); the items it receives that way
 *   (`localOnly`) go to its own workers only, never further. The answer comes back to the owner as a routed
 *   actor call, which releases the owner's copy (`releaseAnswered*`).
 */
import { randomBytes } from 'node:crypto';
import type { AnswerOrigin, ActivityItem, Claim, OrchestrationItem, WorkerConnection, WorkItem } from './work-items.js';
import { WorkQueue } from './work-queue.js';
import { BlockedStreams } from './blocked-streams.js';
import { DormantBatches } from './dormant-batches.js';
import { DEFAULT_MAX_PER_WORKER, DEFAULT_TASK_TIMEOUT_MS, type DispatcherEvents, type DispatcherOptions, type UnresponsiveReason } from './dispatcher-events.js';

interface Held {
  item: WorkItem;
  worker?: WorkerConnection;
  /** Token of the current hand-out. */
  token?: string;
  claimed?: boolean;
  /** Fires when an orchestration batch stays unanswered past the workflow-task timeout. */
  deadline?: NodeJS.Timeout;
  /** Handed over by the owning replica: only this replica's own workers may take it. */
  localOnly?: boolean;
}

const itemKey = (item: WorkItem) => (item.kind === 'orchestration' ? `o|${item.instanceId}` : `a|${item.instanceId}|${item.taskId}`);
/** What a worker must have registered to run the item. */
const capabilityOf = (item: WorkItem) => `${item.kind === 'orchestration' ? 'o' : 'a'}|${item.name}`;

export class WorkDispatcher {
  readonly #held = new Map<string, Held>();
  readonly #queue = new WorkQueue();
  /** Items other replicas handed over (local workers only). */
  readonly #localQueue = new WorkQueue();
  readonly #workers: WorkerConnection[] = [];
  readonly #load = new Map<number, number>();
  /** Per worker: capabilities (`o|name`, `a|name`) it answered "not registered" for. */
  readonly #lacks = new Map<number, Set<string>>();
  /** Workers offered nothing until they answer again (see above). */
  readonly #unresponsive = new Set<number>();
  readonly #blocked: BlockedStreams;
  readonly #dormant: DormantBatches | undefined;
  readonly #maxPerWorker: number;
  readonly #taskTimeoutMs: number;
  #next = 0;
  /** Tokens differ across restarts too: an answer to a previous process's hand-out never matches. */
  readonly #tokenPrefix = randomBytes(4).toString('hex');
  #tokens = 0;

  constructor(
    opts: DispatcherOptions = {},
    private readonly events: DispatcherEvents = {},
  ) {
    this.#maxPerWorker = opts.maxPerWorker ?? DEFAULT_MAX_PER_WORKER;
    this.#taskTimeoutMs = opts.taskTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS;
    this.#blocked = new BlockedStreams(this.#taskTimeoutMs, (worker) => this.#markUnresponsive(worker, 'stream_blocked'));
    const wake = events.wakeDormant?.bind(events);
    this.#dormant = wake && new DormantBatches(wake, () => this.#pump());
  }

  /** Local SDK workers (remote connections to other replicas not counted). */
  get workerCount(): number {
    return this.localWorkers.length;
  }

  /** Is any worker connected, here or (through another replica) remote: could anything be handed out now? */
  get hasWorkers(): boolean {
    return this.#workers.length > 0;
  }

  get localWorkers(): readonly WorkerConnection[] {
    return this.#workers.filter((w) => !w.remote);
  }

  /** Is an orchestration item of this instance queued (or dormant) or with a worker? */
  hasOrchestration(instanceId: string): boolean {
    return this.#held.has(`o|${instanceId}`) || this.#dormant?.has(instanceId) === true;
  }

  hasActivity(instanceId: string, taskId: number): boolean {
    return this.#held.has(`a|${instanceId}|${taskId}`);
  }

  /** The connection an instance's orchestration batch is out with; undefined while queued, answered, or not here. */
  orchestrationWorker(instanceId: string): WorkerConnection | undefined {
    return this.#held.get(`o|${instanceId}`)?.worker;
  }

  /** The connection an activity is out with; undefined while queued, while its answer is recorded, or not here. */
  activityWorker(instanceId: string, taskId: number): WorkerConnection | undefined {
    return this.#held.get(`a|${instanceId}|${taskId}`)?.worker;
  }

  /** Queues an item (an orchestration batch while no worker is connected: dormant); false when one with the same key is already here. */
  offer(item: WorkItem): boolean {
    if (item.kind !== 'orchestration' || this.#workers.length > 0 || !this.#dormant) return this.#queueItem(item, false);
    if (this.hasOrchestration(item.instanceId)) return false;
    this.#dormant.add(item.instanceId);
    return true;
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
    if (held) this.#forget(k, held);
    return this.#queueItem(item, true);
  }

  /** Withdraws a queued orchestration item not yet sent to a worker (terminate must not wait for a worker). */
  withdrawQueuedOrchestration(instanceId: string): boolean {
    if (this.#dormant?.delete(instanceId)) {
      this.events.orchestrationLeft?.(instanceId);
      return true;
    }
    const k = `o|${instanceId}`;
    const held = this.#held.get(k);
    if (!held || held.worker || held.claimed) return false;
    this.#forget(k, held);
    return true;
  }

  /** Withdraws queued items (not yet with a worker) of instances this replica no longer owns. */
  withdrawQueued(instance: (instanceId: string) => boolean): void {
    for (const [k, held] of this.#held) {
      if (held.worker || held.claimed || held.localOnly || !instance(held.item.instanceId)) continue;
      this.#forget(k, held);
    }
    for (const instanceId of this.#dormant?.deleteWhere(instance) ?? []) this.events.orchestrationLeft?.(instanceId);
  }

  /** Forgets queued or sent activity items of cancelled work (their results would be dropped anyway). */
  dropActivity(instanceId: string, taskId: number): void {
    const k = `a|${instanceId}|${taskId}`;
    const held = this.#held.get(k);
    if (held) this.#forget(k, held);
  }

  /**
   * Claims the item a worker answered: it leaves its worker (a disconnect no longer hands it out again) but stays
   * here, so no second item for the same instance/task is queued while the answer is being recorded. An answer
   * to nothing outstanding, already claimed, or to an earlier hand-out of the item (another token or client) is
   * stale. Pair a successful claim with `release` (or `refused`).
   */
  claimOrchestration(instanceId: string, origin: AnswerOrigin = {}): Claim<OrchestrationItem> {
    return this.#claim(`o|${instanceId}`, origin) as Claim<OrchestrationItem>;
  }

  claimActivity(instanceId: string, taskId: number, origin: AnswerOrigin = {}): Claim<ActivityItem> {
    return this.#claim(`a|${instanceId}|${taskId}`, origin) as Claim<ActivityItem>;
  }

  /** Forgets a claimed item once its answer is recorded (or could not be). */
  release(item: WorkItem): void {
    const k = itemKey(item);
    const held = this.#held.get(k);
    if (held?.item === item) this.#forget(k, held);
  }

  /**
   * The worker that answered a claimed item has not registered its workflow or activity: it is not offered that
   * name again. True when the item went back to the queue for another connected worker; false when none is left
   * that might run it (the caller records the refusal and releases the item).
   */
  refused(item: WorkItem, worker: WorkerConnection): boolean {
    const capability = capabilityOf(item);
    let lacks = this.#lacks.get(worker.id);
    if (!lacks) this.#lacks.set(worker.id, (lacks = new Set()));
    lacks.add(capability);
    const k = itemKey(item);
    const held = this.#held.get(k);
    if (held?.item !== item || !held.claimed) return false;
    if (!this.#workers.some((w) => !w.remote && !this.#lacks.get(w.id)?.has(capability))) return false;
    held.claimed = false;
    (held.localOnly ? this.#localQueue : this.#queue).pushFront([k]);
    this.#pump();
    return true;
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
    const held = this.#held.get(k);
    if (held?.worker?.remote) this.#forget(k, held);
  }

  #releaseAnswered(k: string): void {
    const held = this.#held.get(k);
    if (held?.claimed || held?.worker?.remote) this.#forget(k, held);
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
    this.#lacks.delete(worker.id);
    this.#unresponsive.delete(worker.id);
    this.#blocked.drained(worker.id);
    this.#handBack(worker);
    this.events.workersChanged?.(this.workerCount);
    this.#pump();
  }

  /**
   * The worker's stream cannot take more for now (flow control: the worker is not reading). Blocked past the
   * task timeout, the worker is unresponsive; `writeDrained` ends the wait.
   */
  writeBlocked(worker: WorkerConnection): void {
    if (this.#workers.includes(worker)) this.#blocked.blocked(worker);
  }

  writeDrained(worker: WorkerConnection): void {
    this.#blocked.drained(worker.id);
  }

  /** Puts what the worker holds back at the head of the queues; returns those items. */
  #handBack(worker: WorkerConnection): WorkItem[] {
    const back: string[] = [];
    const backLocal: string[] = [];
    const items: WorkItem[] = [];
    for (const [k, held] of this.#held) {
      if (held.worker !== worker) continue;
      this.#detach(held);
      (held.localOnly ? backLocal : back).push(k);
      items.push(held.item);
    }
    this.#load.set(worker.id, 0);
    this.#queue.pushFront(back);
    this.#localQueue.pushFront(backLocal);
    return items;
  }

  #markUnresponsive(worker: WorkerConnection, reason: UnresponsiveReason): void {
    if (!this.#workers.includes(worker) || this.#unresponsive.has(worker.id)) return;
    this.#unresponsive.add(worker.id);
    const items = this.#handBack(worker);
    this.events.workerUnresponsive?.(worker, reason, items);
    this.#pump();
  }

  /** An answer came from this client: its unresponsive workers are offered work again. */
  #heardFrom(peer: string | undefined): void {
    if (peer === undefined || this.#unresponsive.size === 0) return;
    let back = false;
    for (const w of this.#workers) {
      if (w.peer === peer && this.#unresponsive.delete(w.id)) back = true;
    }
    if (back) this.#pump();
  }

  /** Ends every worker stream cleanly (shutdown). Held items stay for the actors' leases after restart. */
  closeAll(): void {
    for (const w of this.#workers.splice(0)) w.close();
    for (const held of this.#held.values()) clearTimeout(held.deadline);
    this.#blocked.clear();
    this.#dormant?.close();
    this.#unresponsive.clear();
    this.#load.clear();
    this.#lacks.clear();
    this.events.workersChanged?.(0);
  }

  #claim(k: string, origin: AnswerOrigin): Claim<WorkItem> {
    this.#heardFrom(origin.peer);
    const held = this.#held.get(k);
    if (!held) return { stale: 'unknown' };
    if (held.claimed) return { stale: 'claimed' };
    const worker = held.worker;
    if (!worker) return { stale: 'unknown' }; // queued, not (or no longer) with a worker: not an answer to anything
    if (origin.token) {
      if (origin.token !== held.token) return { stale: 'token' };
    } else if (origin.peer !== undefined && worker.peer !== undefined && origin.peer !== worker.peer) {
      return { stale: 'connection' };
    }
    this.#unassign(held);
    held.claimed = true;
    return { item: held.item, worker };
  }

  #unassign(held: Held): void {
    const worker = this.#detach(held);
    if (!worker) return;
    this.#load.set(worker.id, Math.max(0, (this.#load.get(worker.id) ?? 1) - 1));
    this.#pump();
  }

  /** The item leaves its worker (its hand-out token and deadline with it); returns that worker. */
  #detach(held: Held): WorkerConnection | undefined {
    const worker = held.worker;
    delete held.worker;
    delete held.token;
    clearTimeout(held.deadline);
    delete held.deadline;
    return worker;
  }

  /** The item is no longer here: off its queue, or off its worker (whose load drops). */
  #forget(k: string, held: Held): void {
    this.#held.delete(k);
    if (held.worker) this.#unassign(held);
    else if (!held.claimed) this.#dequeue(k, held);
    if (held.item.kind === 'orchestration') this.events.orchestrationLeft?.(held.item.instanceId);
  }

  #dequeue(k: string, held: Held): void {
    (held.localOnly ? this.#localQueue : this.#queue).delete(k);
  }

  #pump(): void {
    this.#pumpQueue(this.#localQueue, true);
    this.#pumpQueue(this.#queue, false);
    // What stays queued now waits for a worker of its own kind, or for room: room left goes to dormant batches.
    if (this.#dormant?.size) this.#dormant.wakeUpTo(this.#room() - this.#dormant.waking);
  }

  /** How many more items the workers that may be offered work can take. */
  #room(): number {
    const hasLocal = this.#hasLiveLocal();
    return this.#workers.reduce((room, w) => room + (this.#usable(w, false, hasLocal) ? this.#maxPerWorker - (this.#load.get(w.id) ?? 0) : 0), 0);
  }

  /** Hands out queued items in order; an item no worker with room can run stays queued without holding up the rest. */
  #pumpQueue(queue: WorkQueue, localOnly: boolean): void {
    if (queue.size === 0) return;
    for (const k of queue.keys()) {
      const held = this.#held.get(k);
      if (!held) {
        queue.delete(k);
        continue;
      }
      const worker = this.#pickWorker(held.item, localOnly);
      if (!worker) {
        if (!this.#hasRoom(localOnly)) return;
        continue;
      }
      queue.delete(k);
      const handOut = `${this.#tokenPrefix}-${++this.#tokens}`;
      held.worker = worker;
      held.token = handOut;
      this.#load.set(worker.id, (this.#load.get(worker.id) ?? 0) + 1);
      if (!worker.send(held.item, handOut)) {
        // The stream died under us: its disconnect puts this item back.
        continue;
      }
      // Another replica's worker is timed by that replica, which runs it.
      if (held.item.kind === 'orchestration' && !worker.remote && this.#taskTimeoutMs > 0) {
        held.deadline = setTimeout(() => {
          // Still this hand-out (not answered, not handed out again since).
          if (held.token === handOut) this.#markUnresponsive(worker, 'task_timeout');
        }, this.#taskTimeoutMs);
        held.deadline.unref();
      }
      this.events.dispatched?.(held.item);
    }
  }

  #usable(w: WorkerConnection, localOnly: boolean, hasLocal: boolean): boolean {
    return !(w.remote && (localOnly || hasLocal)) && !this.#unresponsive.has(w.id) && (this.#load.get(w.id) ?? 0) < this.#maxPerWorker;
  }

  #hasRoom(localOnly: boolean): boolean {
    const hasLocal = this.#hasLiveLocal();
    return this.#workers.some((w) => this.#usable(w, localOnly, hasLocal));
  }

  /** A local worker that may be offered work (another replica's workers are used only while there is none). */
  #hasLiveLocal(): boolean {
    return this.#workers.some((w) => !w.remote && !this.#unresponsive.has(w.id));
  }

  /** Local workers round robin; other replicas only while no responsive local worker is connected. */
  #pickWorker(item: WorkItem, localOnly: boolean): WorkerConnection | undefined {
    const hasLocal = this.#hasLiveLocal();
    const capability = capabilityOf(item);
    for (let n = 0; n < this.#workers.length; n++) {
      const w = this.#workers[(this.#next + n) % this.#workers.length] as WorkerConnection;
      if (!this.#usable(w, localOnly, hasLocal) || this.#lacks.get(w.id)?.has(capability)) continue;
      this.#next = (this.#next + n + 1) % this.#workers.length;
      return w;
    }
    return undefined;
  }
}
