/**
 * The svcd part that owns the workflow engine. Both APIs are built before start-up against this object (a
 * `WorkflowEngine`): once the actor runtime runs, calls go to the actor-based engine; without an actor state
 * store every call answers ERR_ACTOR_RUNTIME_NOT_FOUND.
 */
import type { Registry } from 'prom-client';
import type { ActorRuntime } from '../actors/types.js';
import type { ReplicaSet } from '../actors/placement/replica-set.js';
import type { Logger } from '../log/logger.js';
import type { Part } from '../util/lifecycle.js';
import { ActorWorkflowEngine } from './actor-engine.js';
import type { WorkerHub } from './worker-hub.js';
import type { WorkflowEngine } from './engine.js';
import { WorkflowMetrics } from './metrics.js';
import { optional } from './optional.js';
import { unavailableWorkflowEngine } from './unavailable-engine.js';
import type { WorkerLookup } from './management-api.js';
import { workerView, type WorkerView } from './worker-view.js';

export interface WorkflowHostOptions {
  readonly appId: string;
  /** The actor runtime once the actor part started (undefined: no actor state store). */
  readonly actorRuntime: () => ActorRuntime | undefined;
  /** How the engine meets the other replicas of this app (present whenever the actor runtime is). */
  readonly replicas: () => ReplicaSet | undefined;
  readonly metrics: Registry;
  readonly log: Logger;
  /** `--workflow-task-timeout`. */
  readonly taskTimeoutMs?: number;
  /** `--trace-viewer-url`: shown in the metadata, so the web UI links traced instances to their trace. */
  readonly traceViewerUrl?: string | undefined;
}

export class WorkflowHost implements Part, WorkerLookup {
  readonly name = 'workflows';
  /** Stable for the process lifetime: hand it to the HTTP routes and the gRPC service at construction. */
  readonly engine: WorkflowEngine;
  readonly #metrics: WorkflowMetrics;
  #engine: WorkflowEngine = unavailableWorkflowEngine();
  #hub: WorkerHub | undefined;
  #actorEngine: ActorWorkflowEngine | undefined;

  constructor(private readonly opts: WorkflowHostOptions) {
    this.#metrics = new WorkflowMetrics(opts.metrics);
    this.engine = {
      start: (req) => this.#engine.start(req),
      get: (id) => this.#engine.get(id),
      history: (id) => this.#engine.history(id),
      historyRange: (id, from, size) => this.#engine.historyRange(id, from, size),
      rerunFromEvent: (req) => this.#engine.rerunFromEvent(req),
      raiseEvent: (id, name, data) => this.#engine.raiseEvent(id, name, data),
      terminate: (id, o) => this.#engine.terminate(id, o),
      suspend: (id, reason) => this.#engine.suspend(id, reason),
      resume: (id, reason) => this.#engine.resume(id, reason),
      purge: (id, o) => this.#engine.purge(id, o),
      listInstanceIds: (req) => this.#engine.listInstanceIds(req),
      listInstances: (req) => this.#engine.listInstances(req),
      purgeWhere: (filter, o) => this.#engine.purgeWhere(filter, o),
      waitFor: (id, condition, signal) => this.#engine.waitFor(id, condition, signal),
    };
  }

  /** The actor-based engine once workflows run (the internal port's workflow handlers use it). */
  get actorEngine(): ActorWorkflowEngine | undefined {
    return this.#actorEngine;
  }

  /** The worker side, once workflows run. */
  get hub(): WorkerHub | undefined {
    return this.#hub;
  }

  start(): Promise<void> {
    const runtime = this.opts.actorRuntime();
    const replicas = this.opts.replicas();
    if (!runtime || !replicas) return Promise.resolve();
    const engine = new ActorWorkflowEngine({
      runtime,
      replicas,
      appId: this.opts.appId,
      metrics: this.#metrics,
      log: this.opts.log.child({ part: 'workflows' }),
      ...optional('taskTimeoutMs', this.opts.taskTimeoutMs),
    });
    this.#engine = engine;
    this.#hub = engine;
    this.#actorEngine = engine;
    return Promise.resolve();
  }

  /** Ends the workers' GetWorkItems streams with status OK, so SDK workers reconnect after a restart. */
  closeWorkers(): Promise<void> {
    this.#hub?.closeWorkers();
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.#hub = undefined;
    this.#actorEngine = undefined;
    this.#engine = unavailableWorkflowEngine();
    return Promise.resolve();
  }

  /** The worker an activity is out with on this svcd, if it is (the waiting view says which). */
  activityWorker(instanceId: string, taskId: number): WorkerView | undefined {
    const worker = this.#hub?.activityWorker(instanceId, taskId);
    return worker ? workerView(worker) : undefined;
  }

  pendingTurn(instanceId: string): { worker?: WorkerView } | undefined {
    const turn = this.#hub?.pendingTurn(instanceId);
    return turn && (turn.worker ? { worker: workerView(turn.worker) } : {});
  }

  /** `/v1.0/metadata` contribution; `workers` (which ones) and `traceViewer` are svc's additions to Dapr's count. */
  metadata(): Record<string, unknown> {
    const traceViewer = this.opts.traceViewerUrl;
    return { workflows: { connectedWorkers: this.#hub?.workerCount ?? 0, workers: (this.#hub?.localWorkers ?? []).map(workerView), ...optional('traceViewer', traceViewer) } };
  }
}
