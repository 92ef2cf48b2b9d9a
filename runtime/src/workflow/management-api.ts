/**
 * Workflow management without a transport: the HTTP API (`/v1.0/workflows/<component>/…`) and the gRPC runtime
 * API (`StartWorkflowBeta1`, …) both call this, so they validate the same way and fail with the same codes. A
 * failure that carries no catalogue code gets the operation's own (ERR_START_WORKFLOW, …).
 */
import { randomUUID } from 'node:crypto';
import type { ErrorCode } from '../errors/codes.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { withCode } from '../errors/with-code.js';
import type { HistoryRange, InstanceSummary, ListInstancesRequest, WorkflowEngine, WorkflowInstance } from './engine.js';
import { eventIndex, historyEventView, historyPage, pageRange, type HistoryEventView, type HistoryPageView } from './history-view.js';
import { bodyAsPayload, checkWorkflowComponent } from './management-input.js';
import { instanceView, propertyPrefix, type WorkflowInstanceView } from './instance-view.js';
import { checkExistingInstanceId, checkNewInstanceId } from './instance-id.js';
import { waitingView, type WaitingView } from './waiting-view.js';
import type { WorkerView } from './worker-view.js';
import { workflowNotFound } from '../errors/catalogue.js';

/** What this svcd's dispatcher knows of an instance's work: the waiting view names the workers that have it. */
export interface WorkerLookup {
  /** The worker an activity is out with (undefined: queued, or handed out by another replica). */
  activityWorker(instanceId: string, taskId: number): WorkerView | undefined;
  /** The instance's next turn when this svcd holds its batch: queued, or out with a worker. */
  pendingTurn(instanceId: string): { worker?: WorkerView } | undefined;
}

const NO_WORKERS: WorkerLookup = { activityWorker: () => undefined, pendingTurn: () => undefined };

export class WorkflowManagementApi {
  constructor(
    private readonly engine: WorkflowEngine,
    private readonly workers: WorkerLookup = NO_WORKERS,
  ) {}

  /** Starts `name`; the instance ID is the one given (checked) or a new UUID. Input and IDs are validated first. */
  start(component: string, name: string, instanceId: string | undefined, input: Buffer): Promise<string> {
    checkWorkflowComponent(component);
    if (instanceId !== undefined) checkNewInstanceId(instanceId);
    const payload = bodyAsPayload(input);
    return this.#run('ERR_START_WORKFLOW', 'starting workflow', () => this.engine.start({ name, instanceId: instanceId ?? randomUUID(), input: payload }));
  }

  /** The instance as the Get API shows it (properties named after the component), or 404 ERR_INSTANCE_ID_NOT_FOUND. */
  async get(component: string, instanceId: string): Promise<WorkflowInstanceView> {
    this.#check(component, instanceId);
    const instance = await this.#run('ERR_GET_WORKFLOW', 'getting workflow', () => this.engine.get(instanceId));
    return instanceView(existing(instanceId, instance), propertyPrefix(component));
  }

  /**
   * A long poll: the instance once it is updated after `changedAfter` (ms), or as it is when `waitMs` passes or
   * `signal` (the caller gone) aborts first. Woken by the instance's own change notices, never by a timer.
   */
  async watch(component: string, instanceId: string, changedAfter: number, waitMs: number, signal: AbortSignal): Promise<WorkflowInstanceView> {
    this.#check(component, instanceId);
    const waited = AbortSignal.any([AbortSignal.timeout(waitMs), signal]);
    const instance = await this.#run('ERR_GET_WORKFLOW', 'watching workflow', async () => {
      try {
        return await this.engine.waitFor(instanceId, { changedAfter }, waited);
      } catch (err) {
        if (waited.aborted) return this.engine.get(instanceId);
        throw err;
      }
    });
    return instanceView(existing(instanceId, instance), propertyPrefix(component));
  }

  /** Recursive, like the reference API: terminating a parent must not leave its children running. */
  terminate(component: string, instanceId: string): Promise<void> {
    this.#check(component, instanceId);
    return this.#run('ERR_TERMINATE_WORKFLOW', 'terminating workflow', () => this.engine.terminate(instanceId, { recursive: true }));
  }

  raiseEvent(component: string, instanceId: string, eventName: string, data: Buffer): Promise<void> {
    this.#check(component, instanceId);
    if (eventName === '') throw new RuntimeError('ERR_WORKFLOW_EVENT_NAME_MISSING', 'missing workflow event name');
    const payload = bodyAsPayload(data);
    return this.#run('ERR_RAISE_EVENT_WORKFLOW', 'raising event on workflow', () => this.engine.raiseEvent(instanceId, eventName, payload));
  }

  pause(component: string, instanceId: string): Promise<void> {
    this.#check(component, instanceId);
    return this.#run('ERR_PAUSE_WORKFLOW', 'pausing workflow', () => this.engine.suspend(instanceId));
  }

  resume(component: string, instanceId: string): Promise<void> {
    this.#check(component, instanceId);
    return this.#run('ERR_RESUME_WORKFLOW', 'resuming workflow', () => this.engine.resume(instanceId));
  }

  /**
   * The engine checks the whole tree in the instance's own turns: 404 when unknown, 409
   * ERR_PURGE_WORKFLOW_NOT_COMPLETED when it or a sub-workflow still runs (also when racing a restart).
   */
  async purge(component: string, instanceId: string): Promise<void> {
    this.#check(component, instanceId);
    await this.#run('ERR_PURGE_WORKFLOW', 'purging workflow', () => this.engine.purge(instanceId, { recursive: true }));
  }

  /** A page of instances, newest update first (see `WorkflowEngine.listInstances`). */
  async list(component: string, req: ListInstancesRequest): Promise<InstanceListView> {
    checkWorkflowComponent(component);
    const page = await this.#run('ERR_GET_WORKFLOW', 'listing workflows', () => this.engine.listInstances(req));
    return { instances: page.instances.map(summaryView), continuationToken: page.continuationToken ?? null };
  }

  /** A page of the instance's history events (payloads trimmed unless `whole`), or 404. Reads only the page. */
  async history(component: string, instanceId: string, page: { pageSize?: number; continuationToken?: string; whole: boolean }): Promise<HistoryPageView> {
    const { from, size } = pageRange(page);
    return historyPage(instanceId, await this.#historyRange(component, instanceId, from, size), page);
  }

  /** One history event with its payloads whole. */
  async historyEvent(component: string, instanceId: string, index: string): Promise<HistoryEventView> {
    const { from } = pageRange({ continuationToken: index });
    const { historyLength, events } = await this.#historyRange(component, instanceId, from, 1);
    const i = eventIndex(index, historyLength, 'event index');
    return historyEventView(events[0]!, i, true);
  }

  /** What the instance waits for (see `waiting-view.ts`), or 404. */
  async waiting(component: string, instanceId: string): Promise<WaitingView> {
    this.#check(component, instanceId);
    const instance = existing(instanceId, await this.#run('ERR_GET_WORKFLOW', 'getting workflow', () => this.engine.get(instanceId)));
    const history = await this.#run('ERR_GET_WORKFLOW', 'getting workflow history', () => this.engine.history(instanceId));
    if (history === undefined) throw workflowNotFound(instanceId); // purged between the two reads
    return waitingView(instanceId, history, {
      status: instance.runtimeStatus,
      now: Date.now(),
      activityWorker: (taskId) => this.workers.activityWorker(instanceId, taskId),
      turn: this.workers.pendingTurn(instanceId),
    });
  }

  /**
   * A new instance from a finished one's history, cut after the activity or sub-workflow start `eventId`; a
   * non-empty body replaces that activity's input. Resolves with the new instance's ID.
   */
  rerun(component: string, instanceId: string, eventId: string, newInstanceId: string | undefined, input: Buffer): Promise<string> {
    this.#check(component, instanceId);
    if (!/^\d{1,9}$/.test(eventId)) throw new RuntimeError('ERR_RERUN_EVENT_INVALID', `event ID '${eventId.slice(0, 40)}' is not a number: use the eventId of a TaskScheduled or SubOrchestrationInstanceCreated event`);
    if (newInstanceId !== undefined) checkNewInstanceId(newInstanceId);
    const payload = bodyAsPayload(input);
    return this.#run('ERR_RERUN_WORKFLOW', 'rerunning workflow', () =>
      this.engine.rerunFromEvent({
        sourceInstanceId: instanceId,
        eventId: Number(eventId),
        ...(newInstanceId !== undefined ? { newInstanceId } : {}),
        ...(payload !== undefined ? { input: payload, overwriteInput: true } : {}),
      }),
    );
  }

  /** Events `from` … `from + size − 1` of the current run and its length, or 404. */
  async #historyRange(component: string, instanceId: string, from: number, size: number): Promise<HistoryRange> {
    this.#check(component, instanceId);
    const range = await this.#run('ERR_GET_WORKFLOW', 'getting workflow history', () => this.engine.historyRange(instanceId, from, size));
    if (range === undefined) throw workflowNotFound(instanceId);
    return range;
  }

  #check(component: string, instanceId: string): void {
    checkWorkflowComponent(component);
    checkExistingInstanceId(instanceId);
  }

  #run<T>(code: ErrorCode, action: string, work: () => Promise<T>): Promise<T> {
    return withCode(code, `error ${action}`, work);
  }
}

function existing(instanceId: string, instance: WorkflowInstance | undefined): WorkflowInstance {
  if (instance === undefined) throw workflowNotFound(instanceId);
  return instance;
}

export interface InstanceSummaryView {
  instanceID: string;
  workflowName: string;
  runtimeStatus: string;
  createdAt: string;
  lastUpdatedAt: string;
  parentInstanceID?: string;
}

export interface InstanceListView {
  instances: InstanceSummaryView[];
  continuationToken: string | null;
}

function summaryView(i: InstanceSummary): InstanceSummaryView {
  return {
    instanceID: i.instanceId,
    workflowName: i.name,
    runtimeStatus: i.runtimeStatus,
    createdAt: new Date(i.createdAt).toISOString(),
    lastUpdatedAt: new Date(i.lastUpdatedAt).toISOString(),
    ...(i.parentInstanceId !== undefined ? { parentInstanceID: i.parentInstanceId } : {}),
  };
}
