import { RuntimeError } from '../../src/errors/runtime-error.js';
import type { HistoryEvent } from '../../src/workflow/history.js';
import { isTerminalStatus, type HistoryRange, type InstanceIdPage, type InstanceSummaryPage, type ListInstancesRequest, type StartWorkflowRequest, type WorkflowEngine, type WorkflowInstance } from '../../src/workflow/engine.js';

/** Runs `fn` as a promise, so a synchronous throw becomes a rejection like the real engine's. */
function settle<T>(fn: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(fn()));
}

/**
 * In-memory stand-in for the engine, for the HTTP route unit tests only (the e2e suites run the real engine). It
 * records every call so tests can assert that a rejected request never reached the engine.
 */
export class FakeWorkflowEngine implements WorkflowEngine {
  readonly instances = new Map<string, WorkflowInstance>();
  readonly calls: string[] = [];
  readonly listRequests: ListInstancesRequest[] = [];
  readonly events: { instanceId: string; name: string; data: string | undefined }[] = [];
  /** When set, every call rejects with it (a runtime failure that is not a catalogued error). */
  failWith: Error | undefined;

  private enter(op: string, instanceId: string): WorkflowInstance | undefined {
    this.calls.push(`${op}:${instanceId}`);
    if (this.failWith) throw this.failWith;
    return this.instances.get(instanceId);
  }

  private existing(op: string, instanceId: string): WorkflowInstance {
    const instance = this.enter(op, instanceId);
    if (!instance) throw new RuntimeError('ERR_INSTANCE_ID_NOT_FOUND', `no instance ${instanceId}`);
    return instance;
  }

  start(req: StartWorkflowRequest): Promise<string> {
    return settle(() => {
      const id = req.instanceId ?? 'generated';
      const existing = this.enter('start', id);
      if (existing && !isTerminalStatus(existing.runtimeStatus)) throw new RuntimeError('ERR_WORKFLOW_ALREADY_EXISTS', `instance ${id} is running`);
      const now = new Date();
      this.instances.set(id, { instanceId: id, name: req.name, runtimeStatus: 'PENDING', createdAt: now, lastUpdatedAt: now, input: req.input });
      return id;
    });
  }

  get(instanceId: string): Promise<WorkflowInstance | undefined> {
    return settle(() => {
      return this.enter('get', instanceId);
    });
  }

  rerunFromEvent(): Promise<string> {
    return Promise.reject(new Error('not used by the HTTP API'));
  }

  history(): Promise<HistoryEvent[] | undefined> {
    return Promise.reject(new Error('not used by the HTTP API'));
  }

  historyRange(): Promise<HistoryRange | undefined> {
    return Promise.reject(new Error('not used by the HTTP API'));
  }

  raiseEvent(instanceId: string, name: string, data?: string): Promise<void> {
    return settle(() => {
      this.existing('raiseEvent', instanceId);
      this.events.push({ instanceId, name, data });
    });
  }

  terminate(instanceId: string): Promise<void> {
    return settle(() => {
      const instance = this.existing('terminate', instanceId);
      if (!isTerminalStatus(instance.runtimeStatus)) instance.runtimeStatus = 'TERMINATED';
    });
  }

  suspend(instanceId: string): Promise<void> {
    return settle(() => {
      const instance = this.existing('suspend', instanceId);
      if (instance.runtimeStatus === 'RUNNING') instance.runtimeStatus = 'SUSPENDED';
    });
  }

  resume(instanceId: string): Promise<void> {
    return settle(() => {
      const instance = this.existing('resume', instanceId);
      if (instance.runtimeStatus === 'SUSPENDED') instance.runtimeStatus = 'RUNNING';
    });
  }

  purge(instanceId: string): Promise<number> {
    return settle(() => {
      const instance = this.existing('purge', instanceId);
      if (!isTerminalStatus(instance.runtimeStatus)) throw new RuntimeError('ERR_PURGE_WORKFLOW_NOT_COMPLETED', 'not completed');
      this.instances.delete(instanceId);
      return 1;
    });
  }

  waitFor(): Promise<WorkflowInstance | undefined> {
    return Promise.reject(new Error('not used by the HTTP API'));
  }

  /** Every instance held, unfiltered: the route tests check what reached the engine (`listRequests`). */
  listInstances(req: ListInstancesRequest): Promise<InstanceSummaryPage> {
    return settle(() => {
      this.enter('list', '');
      this.listRequests.push(req);
      return {
        instances: [...this.instances.values()].map((i) => ({ instanceId: i.instanceId, name: i.name, runtimeStatus: i.runtimeStatus, createdAt: i.createdAt.getTime(), lastUpdatedAt: i.lastUpdatedAt.getTime() })),
      };
    });
  }

  listInstanceIds(): Promise<InstanceIdPage> {
    return Promise.reject(new Error('not used by the HTTP API'));
  }

  purgeWhere(): Promise<number> {
    return Promise.reject(new Error('not used by the HTTP API'));
  }
}
