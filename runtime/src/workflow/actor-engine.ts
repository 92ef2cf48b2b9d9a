/**
 * `WorkflowEngine` on the actor runtime: every operation is a turn on the instance's orchestration actor, and
 * the worker side (the gRPC `GetWorkItems` streams) plugs in through `WorkerHub`.
 */
import { randomUUID } from 'node:crypto';
import type { ActorRuntime } from '../actors/types.js';
import type { ErrorCode } from '../errors/codes.js';
import { RuntimeError, ensureError, isRuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { ownershipPartitionOf } from '../actors/placement/partitions.js';
import { WorkDispatcher } from './dispatcher.js';
import { warnUnresponsive, warnWakeFailed } from './dispatch-warnings.js';
import type { AnswerOrigin, Claim, StaleReason, WorkItem, WorkerConnection } from './work-items.js';
import { listPageSize, MAX_LIST_PAGE_SIZE, meetsCondition, statusMeets, type HistoryRange, type InstanceIdPage, type InstanceSummaryPage, type ListInstanceIdsRequest, type ListInstancesRequest, type PurgeFilter, type RuntimeStatus, type PurgeOptions, type StartWorkflowRequest, type TerminateOptions, type WaitCondition, type WorkflowEngine, type WorkflowInstance } from './engine.js';
import type { HistoryEvent } from './history.js';
import { eventRaised, executionResumed, executionSuspended, executionTerminated, taskCompleted, taskFailed } from './history-events.js';
import type { WorkerAction } from './instance.js';
import { BY_UPDATE_INDEX, InstanceIndex, continuationToken, instanceIdAfter, matchesPurgeFilter } from './instance-index.js';
import type { WorkflowMetrics } from './metrics.js';
import { optional } from './optional.js';
import { ResultBatcher } from './result-batcher.js';
import { INTERNAL_ACTOR_TYPE_PREFIX } from '../actors/public-actors.js';
import { DECODED_KEY_PREFIXES, RUN, OrchestrationActor } from './orchestration-actor.js';
import { decode, decodeHistory, decodeHistoryRange, encodeActivityResults, encodeCompletion, type ActivityResultPayload, encode, fromSnapshot, toSnapshot, type CompletionPayload, type InstanceSnapshot } from './orchestration-messages.js';
import type { ReplicaSet } from '../actors/placement/replica-set.js';
import { WORKFLOW_PEER_METHODS } from './peer-methods.js';
import { PeerWorkers } from './peer-workers.js';
import { rerunHistory, startedName, type RerunRequest } from './rerun.js';
import { InstanceWatchers } from './watchers.js';
import { workflowNotFound } from '../errors/catalogue.js';
import { isNotRegistered, type ActivityOutcome, type WorkerHub } from './worker-hub.js';
import { activeTraceContext, tracedStart } from './workflow-tracing.js';

/**
 * Idle time after which a running instance's activation (its history in memory) ends: an instance waiting on a
 * long timer or a slow activity holds no memory; its next turn reads the history again (one round trip).
 * Finished instances end at once (`deactivateWhenIdle`).
 */
const WORKFLOW_IDLE_TIMEOUT_MS = 60_000;

export interface ActorWorkflowEngineOptions {
  readonly runtime: ActorRuntime;
  readonly appId: string;
  readonly metrics: WorkflowMetrics;
  readonly log: Logger;
  readonly replicas: ReplicaSet;
  /** `--workflow-task-timeout` (see dispatcher.ts); default 10 s. */
  readonly taskTimeoutMs?: number;
}

export class ActorWorkflowEngine implements WorkflowEngine, WorkerHub {
  readonly actorType: string;
  readonly #runtime: ActorRuntime;
  readonly #metrics: WorkflowMetrics;
  readonly #log: Logger;
  readonly #dispatcher: WorkDispatcher;
  readonly #watchers: InstanceWatchers;
  readonly #index: InstanceIndex;
  readonly #turnStarted = new Map<string, number>();
  /** Aborted at shutdown: pending waits answer UNAVAILABLE at once instead of holding the gRPC server open. */
  readonly #closing = new AbortController();
  readonly #replicas: ReplicaSet;
  /** Per ownership partition: aborted when the partition leaves this replica, so local waits move to the owner. */
  readonly #partitionWaits = new Map<number, AbortController>();
  /** Other replicas' workers, used while none is connected here. */
  readonly #peerWorkers: PeerWorkers;
  /** Activity results go to their instance in batches: one turn and one commit for all that arrived meanwhile. */
  readonly #results = new ResultBatcher<ActivityResultPayload>(async (instanceId, results) => {
    await this.#runtime.invoke(this.actorType, instanceId, 'activityResults', await encodeActivityResults(results));
  });

  constructor(opts: ActorWorkflowEngineOptions) {
    this.actorType = `${INTERNAL_ACTOR_TYPE_PREFIX}${opts.appId}.workflow`;
    this.#runtime = opts.runtime;
    this.#replicas = opts.replicas;
    this.#metrics = opts.metrics;
    this.#log = opts.log;
    this.#dispatcher = new WorkDispatcher(optional('taskTimeoutMs', opts.taskTimeoutMs), {
      dispatched: (item) => {
        if (item.kind === 'orchestration') this.#turnStarted.set(item.instanceId, performance.now());
      },
      workersChanged: (n) => {
        this.#metrics.connectedWorkers.set(n);
        this.#replicas.workersChanged();
      },
      workerUnresponsive: (worker, reason, reoffered) => {
        this.#metrics.unresponsiveWorkers.inc({ reason });
        warnUnresponsive(this.#log, worker, reason, reoffered);
      },
      // Its `run` lease, parked while the batch was held here (`leaseIdle` below), watches over it again.
      orchestrationLeft: (instanceId) => this.#runtime.wakeLease(this.actorType, instanceId, RUN),
      wakeDormant: (instanceId) => this.#invoke(instanceId, 'offer').then(() => undefined, (err: unknown) => warnWakeFailed(this.#log, instanceId, err)),
    });
    this.#watchers = new InstanceWatchers((id) => this.get(id));
    const deps = {
      actorType: this.actorType,
      runtime: this.#runtime,
      dispatcher: this.#dispatcher,
      metrics: this.#metrics,
      log: this.#log,
      changed: (id: string, status?: RuntimeStatus) => this.#watchers.notify(id, status),
    };
    this.#runtime.registerType(this.actorType, (id) => new OrchestrationActor(id, deps), {
      idleTimeoutMs: WORKFLOW_IDLE_TIMEOUT_MS,
      uncachedKeyPrefixes: DECODED_KEY_PREFIXES,
      indexes: [BY_UPDATE_INDEX],
      // A `run` lease fire while the dispatcher holds the batch would change nothing: parked (docs/workflow-engine.md).
      leaseIdle: (instanceId, reminder) => reminder === RUN && this.#dispatcher.hasOrchestration(instanceId),
    });
    this.#index = new InstanceIndex(this.#runtime, this.actorType);
    this.#replicas.onPartitionsLeft((partitions) => this.#partitionsLeft(partitions));
    this.#peerWorkers = new PeerWorkers(this.#replicas, this.#dispatcher, this.#log);
    void this.#peerWorkers.follow(this.#closing.signal);
  }

  // ---- client side ----

  async start(req: StartWorkflowRequest): Promise<string> {
    const instanceId = req.instanceId && req.instanceId !== '' ? req.instanceId : randomUUID();
    await this.#op('start', 'ERR_START_WORKFLOW', `error starting workflow '${req.name}'`, () =>
      tracedStart(req.name, instanceId, req.parentTrace, (parentTrace) =>
        this.#invoke(instanceId, 'create', {
          name: req.name,
          instanceId,
          ...(req.input !== undefined ? { input: req.input } : {}),
          ...(req.scheduledStartTime ? { scheduledStartTime: req.scheduledStartTime.getTime() } : {}),
          ...(req.reuse ? { reuse: req.reuse } : {}),
          ...optional('parentTrace', parentTrace),
        }),
      ),
    );
    return instanceId;
  }

  async rerunFromEvent(req: RerunRequest): Promise<string> {
    const newInstanceId = req.newInstanceId !== undefined && req.newInstanceId !== '' ? req.newInstanceId : randomUUID();
    return this.#op('rerun', 'ERR_RERUN_WORKFLOW', `error rerunning workflow '${req.sourceInstanceId}' from event ${req.eventId}`, async () => {
      // One read of the source: its history says whether it finished and what it is called.
      const source = await this.history(req.sourceInstanceId);
      if (!source) throw workflowNotFound(req.sourceInstanceId);
      await tracedStart(startedName(source), newInstanceId, undefined, (parentTrace) => this.#invoke(newInstanceId, 'adopt', rerunHistory(source, { ...req, newInstanceId }, parentTrace)));
      return newInstanceId;
    });
  }

  async history(instanceId: string): Promise<HistoryEvent[] | undefined> {
    return this.#op('history', 'ERR_GET_WORKFLOW', `error while getting the history of workflow '${instanceId}'`, async () =>
      decodeHistory(await this.#invoke(instanceId, 'history')),
    );
  }

  historyRange(instanceId: string, from: number, size: number): Promise<HistoryRange | undefined> {
    return this.#op('history', 'ERR_GET_WORKFLOW', `error while getting the history of workflow '${instanceId}'`, async () => decodeHistoryRange(await this.#invoke(instanceId, 'historyRange', { from, size })));
  }

  async get(instanceId: string): Promise<WorkflowInstance | undefined> {
    return this.#op('get', 'ERR_GET_WORKFLOW', `error while getting workflow info on instance '${instanceId}'`, async () => {
      const snap = decode<InstanceSnapshot>(await this.#invoke(instanceId, 'get'));
      return snap ? fromSnapshot(snap) : undefined;
    });
  }

  async raiseEvent(instanceId: string, eventName: string, data?: string): Promise<void> {
    await this.#addEvent('raise_event', 'ERR_RAISE_EVENT_WORKFLOW', `error raising event on workflow '${instanceId}'`, instanceId, eventRaised({ timestamp: Date.now() }, eventName, data, activeTraceContext()));
  }

  async terminate(instanceId: string, opts: TerminateOptions = {}): Promise<void> {
    await this.#addEvent('terminate', 'ERR_TERMINATE_WORKFLOW', `error terminating workflow '${instanceId}'`, instanceId, executionTerminated({ timestamp: Date.now() }, opts.output, opts.recursive === true));
  }

  async suspend(instanceId: string, reason?: string): Promise<void> {
    await this.#addEvent('suspend', 'ERR_PAUSE_WORKFLOW', `error pausing workflow ${instanceId}`, instanceId, executionSuspended({ timestamp: Date.now() }, reason));
  }

  async resume(instanceId: string, reason?: string): Promise<void> {
    await this.#addEvent('resume', 'ERR_RESUME_WORKFLOW', `error resuming workflow ${instanceId}`, instanceId, executionResumed({ timestamp: Date.now() }, reason));
  }

  async purge(instanceId: string, opts: PurgeOptions = {}): Promise<number> {
    return this.#op('purge', 'ERR_PURGE_WORKFLOW', `error purging workflow ${instanceId}`, async () => {
      // Check the whole tree first: a refusal must leave everything in place.
      const tree = await this.#tree(instanceId, opts.recursive === true);
      if (!tree) throw workflowNotFound(instanceId);
      const live = tree.find((n) => !n.terminal);
      if (live) {
        throw new RuntimeError(
          'ERR_PURGE_WORKFLOW_NOT_COMPLETED',
          `error purging workflow ${instanceId}: workflow '${live.id}' has not completed; only completed, failed or terminated workflows can be purged (terminate it first)`,
        );
      }
      let deleted = 0;
      for (const node of tree.reverse()) {
        try {
          await this.#invoke(node.id, 'purge');
          deleted++;
        } catch (err) {
          if (!isRuntimeError(err, 'ERR_INSTANCE_ID_NOT_FOUND') || node.id === instanceId) throw err;
        }
      }
      return deleted;
    });
  }

  async listInstanceIds(req: ListInstanceIdsRequest): Promise<InstanceIdPage> {
    const after = req.continuationToken !== undefined ? instanceIdAfter(req.continuationToken) : undefined;
    const size = listPageSize(req.pageSize);
    return this.#op('list', 'ERR_GET_WORKFLOW', 'error listing workflow instances', async () => {
      const { instances, more } = await this.#index.page(after, size);
      const instanceIds = instances.map((i) => i.instanceId);
      const last = instanceIds[instanceIds.length - 1];
      return more && last !== undefined ? { instanceIds, continuationToken: continuationToken(last) } : { instanceIds };
    });
  }

  async listInstances(req: ListInstancesRequest): Promise<InstanceSummaryPage> {
    const size = listPageSize(req.pageSize);
    return this.#op('list', 'ERR_GET_WORKFLOW', 'error listing workflow instances', () => this.#index.query(req.filter, size, req.continuationToken));
  }

  /**
   * Walks the whole index (a page of MAX_LIST_PAGE_SIZE entries at a time) and purges each match through the
   * single-instance purge, which checks again, in the instance's own turn, that it is terminal.
   */
  async purgeWhere(filter: PurgeFilter, opts: PurgeOptions = {}): Promise<number> {
    return this.#op('purge_filter', 'ERR_PURGE_WORKFLOW', 'error purging workflows by filter', async () => {
      let deleted = 0;
      for await (const instance of this.#index.all(MAX_LIST_PAGE_SIZE)) {
        if (!matchesPurgeFilter(instance, filter)) continue;
        try {
          deleted += await this.purge(instance.instanceId, opts);
        } catch (err) {
          // Purged meanwhile (e.g. with its parent), or running again, or (recursive) its tree still runs: skipped.
          if (!isRuntimeError(err, 'ERR_INSTANCE_ID_NOT_FOUND') && !isRuntimeError(err, 'ERR_PURGE_WORKFLOW_NOT_COMPLETED')) throw err;
        }
      }
      return deleted;
    });
  }

  /** Waits where the instance is owned: change notifications exist only on the owner. */
  async waitFor(instanceId: string, condition: WaitCondition, signal: AbortSignal): Promise<WorkflowInstance | undefined> {
    const s = AbortSignal.any([signal, this.#closing.signal]);
    const snap = await this.#replicas.router.run<InstanceSnapshot | null | undefined>(
      instanceId,
      this.actorType,
      WORKFLOW_PEER_METHODS.wait,
      { instanceId, condition },
      () => this.waitHere(instanceId, condition, s),
      s,
    );
    return snap ? fromSnapshot(snap) : undefined;
  }

  /**
   * The owner's side of a wait (local calls and the internal port): refused when the instance is not owned here,
   * aborted with ERR_ACTOR_NOT_OWNER when its partition leaves this replica (the caller waits on the new owner).
   */
  async waitHere(instanceId: string, condition: WaitCondition, signal: AbortSignal): Promise<InstanceSnapshot | undefined> {
    if (!this.#replicas.ownsHere(instanceId)) throw notOwner(instanceId);
    const moved = this.#partitionWait(ownershipPartitionOf(instanceId)).signal;
    const found = await this.#watchers.waitUntil(
      instanceId,
      (i) => meetsCondition(i, condition),
      AbortSignal.any([signal, this.#closing.signal, moved]),
      (status) => statusMeets(status, condition),
      // A client may wait for an instance it is about to schedule (the Durable Task SDKs and daprd allow it).
      condition === 'started' || condition === 'completed',
    );
    return found ? toSnapshot(found) : undefined;
  }

  /** An item another replica handed over (it owns the instance, has no worker): queued for local workers only. */
  acceptForwarded(item: WorkItem): { accepted: boolean } {
    if (this.#dispatcher.workerCount === 0) return { accepted: false };
    return { accepted: this.#dispatcher.offerForwarded(item) };
  }

  // ---- worker side ----

  get workerCount(): number {
    return this.#dispatcher.workerCount;
  }

  get localWorkers(): readonly WorkerConnection[] {
    return this.#dispatcher.localWorkers;
  }

  activityWorker(instanceId: string, taskId: number): WorkerConnection | undefined {
    return this.#dispatcher.activityWorker(instanceId, taskId);
  }

  pendingTurn(instanceId: string): { worker?: WorkerConnection } | undefined {
    if (!this.#dispatcher.hasOrchestration(instanceId)) return undefined;
    const worker = this.#dispatcher.orchestrationWorker(instanceId);
    return worker ? { worker } : {};
  }

  connect(worker: WorkerConnection): void {
    this.#dispatcher.connect(worker);
  }

  disconnect(worker: WorkerConnection): void {
    this.#dispatcher.disconnect(worker);
  }

  writeBlocked(worker: WorkerConnection): void {
    this.#dispatcher.writeBlocked(worker);
  }

  writeDrained(worker: WorkerConnection): void {
    this.#dispatcher.writeDrained(worker);
  }

  closeWorkers(): void {
    this.#peerWorkers.forgetAll();
    this.#dispatcher.closeAll();
    this.#closing.abort(new RuntimeError('ERR_ACTOR_RUNTIME_STOPPING', 'svcd is shutting down'));
  }

  async completeOrchestration(instanceId: string, actions: WorkerAction[], customStatus: string | undefined, origin: AnswerOrigin = {}): Promise<void> {
    const claim = this.#dispatcher.claimOrchestration(instanceId, origin);
    if (this.#stale('orchestration', claim, { instanceId })) return;
    const { item, worker } = claim;
    const only = actions.length === 1 ? actions[0] : undefined;
    if (only?.type === 'CompleteOrchestration' && only.status === 'FAILED' && isNotRegistered(only.failureDetails) && this.#refused(item, worker)) return;
    const started = this.#turnStarted.get(instanceId);
    this.#turnStarted.delete(instanceId);
    const payload: CompletionPayload = {
      plan: { generation: item.generation, historyLength: item.historyLength, seqs: item.seqs, orchestratorStarted: item.newEvents[0] as HistoryEvent },
      actions,
      ...(customStatus !== undefined ? { customStatus } : {}),
    };
    let recorded: { invalid?: string } | undefined;
    try {
      recorded = decode<{ invalid?: string }>(await this.#runtime.invoke(this.actorType, instanceId, 'complete', await encodeCompletion(payload)));
      if (started !== undefined) this.#metrics.turnLatency.observe((performance.now() - started) / 1000);
    } catch (err) {
      // Nothing was recorded; the instance's lease offers the batch again.
      this.#log.warn({ instanceId, err: ensureError(err).message }, 'recording an orchestration result failed');
    } finally {
      this.#dispatcher.release(item);
    }
    if (recorded?.invalid !== undefined) {
      this.#log.warn({ instanceId, reason: recorded.invalid }, 'malformed orchestration result: the instance failed');
      throw new RuntimeError('ERR_MALFORMED_REQUEST', `orchestration result for '${instanceId}' rejected: ${recorded.invalid}; the instance failed`);
    }
  }

  async completeActivity(instanceId: string, taskId: number, outcome: ActivityOutcome, origin: AnswerOrigin = {}): Promise<void> {
    const claim = this.#dispatcher.claimActivity(instanceId, taskId, origin);
    if (this.#stale('activity', claim, { instanceId, taskId })) return;
    const { item, worker } = claim;
    if ('failureDetails' in outcome && isNotRegistered(outcome.failureDetails) && this.#refused(item, worker)) return;
    const event =
      'failureDetails' in outcome
        ? taskFailed({ timestamp: Date.now() }, taskId, outcome.failureDetails)
        : taskCompleted({ timestamp: Date.now() }, taskId, outcome.result);
    try {
      await this.#results.add(instanceId, { event, generation: item.generation });
    } catch (err) {
      // Not recorded: the activity's reminder runs it again.
      this.#log.warn({ instanceId, taskId, err: ensureError(err).message }, 'recording an activity result failed');
    } finally {
      this.#dispatcher.release(item);
    }
  }

  /** Counts and logs an answer that answers no outstanding hand-out; true when the claim failed. */
  #stale<T extends WorkItem>(kind: WorkItem['kind'], claim: Claim<T>, context: object): claim is { stale: StaleReason } {
    if (!('stale' in claim)) return false;
    this.#metrics.staleAnswers.inc({ kind, reason: claim.stale });
    this.#log.info({ ...context, kind, reason: claim.stale }, 'stale worker answer ignored');
    return true;
  }

  /** The worker has not registered this work: another worker gets it, unless none is left that might run it. */
  #refused(item: WorkItem, worker: WorkerConnection): boolean {
    if (!this.#dispatcher.refused(item, worker)) return false;
    this.#metrics.refusedWork.inc({ kind: item.kind });
    this.#log.info({ instanceId: item.instanceId, kind: item.kind, name: item.name, worker: worker.id }, 'worker has not registered this work: handed to another worker');
    return true;
  }

  // ---- several replicas ----

  #partitionWait(partition: number): AbortController {
    let c = this.#partitionWaits.get(partition);
    if (!c) this.#partitionWaits.set(partition, (c = new AbortController()));
    return c;
  }

  #partitionsLeft(partitions: ReadonlySet<number>): void {
    for (const p of partitions) {
      this.#partitionWaits.get(p)?.abort(notOwner(`(partition ${p})`));
      this.#partitionWaits.delete(p);
    }
    this.#dispatcher.withdrawQueued((instanceId) => partitions.has(ownershipPartitionOf(instanceId)));
  }

  // ---- helpers ----

  #invoke(instanceId: string, method: string, payload?: unknown): Promise<Buffer | undefined> {
    return this.#runtime.invoke(this.actorType, instanceId, method, payload === undefined ? undefined : encode(payload));
  }

  async #addEvent(operation: string, code: ErrorCode, context: string, instanceId: string, event: HistoryEvent): Promise<void> {
    await this.#op(operation, code, context, () => this.#invoke(instanceId, 'event', { event }));
  }

  /** The instance and (when recursive) its sub-workflows, parents first; undefined when the root is unknown. */
  async #tree(instanceId: string, recursive: boolean): Promise<{ id: string; terminal: boolean }[] | undefined> {
    const out: { id: string; terminal: boolean }[] = [];
    const seen = new Set<string>();
    const queue = [instanceId];
    while (queue.length > 0) {
      const id = queue.shift() as string;
      if (seen.has(id)) continue;
      seen.add(id);
      const node = decode<{ terminal: boolean; children: string[] }>(await this.#invoke(id, 'tree'));
      if (!node) {
        if (id === instanceId) return undefined;
        continue;
      }
      out.push({ id, terminal: node.terminal });
      if (recursive) for (const child of node.children) queue.push(child);
    }
    return out;
  }

  /** Runs an operation: counts it, keeps catalogue errors, wraps anything else in the operation's code. */
  async #op<T>(operation: string, code: ErrorCode, context: string, body: () => Promise<T>): Promise<T> {
    try {
      const out = await body();
      this.#metrics.operations.inc({ operation, status: 'success' });
      return out;
    } catch (err) {
      this.#metrics.operations.inc({ operation, status: 'failure' });
      if (err instanceof RuntimeError) throw err;
      throw new RuntimeError(code, `${context}: ${ensureError(err).message}`, { cause: err });
    }
  }
}

function notOwner(instanceId: string): RuntimeError {
  return new RuntimeError('ERR_ACTOR_NOT_OWNER', `workflow ${instanceId} is not owned by this replica (its partition moved)`);
}
