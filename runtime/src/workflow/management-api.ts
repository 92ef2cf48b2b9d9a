/**
 * Workflow management without a transport: the HTTP API (`/v1.0/workflows/<component>/…`) and the gRPC runtime
 * API (`StartWorkflowBeta1`, …) both call this, so they validate the same way and fail with the same codes. A
 * failure that carries no catalogue code gets the operation's own (ERR_START_WORKFLOW, …).
 */
import { randomUUID } from 'node:crypto';
import type { ErrorCode } from '../errors/codes.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { withCode } from '../errors/with-code.js';
import type { WorkflowEngine, WorkflowInstance } from './engine.js';
import { bodyAsPayload, checkWorkflowComponent } from './http-validation.js';
import { instanceView, propertyPrefix, type WorkflowInstanceView } from './http-view.js';
import { checkExistingInstanceId, checkNewInstanceId } from './instance-id.js';

export class WorkflowManagementApi {
  constructor(private readonly engine: WorkflowEngine) {}

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

  #check(component: string, instanceId: string): void {
    checkWorkflowComponent(component);
    checkExistingInstanceId(instanceId);
  }

  #run<T>(code: ErrorCode, action: string, work: () => Promise<T>): Promise<T> {
    return withCode(code, `error ${action}`, work);
  }
}

function existing(instanceId: string, instance: WorkflowInstance | undefined): WorkflowInstance {
  if (instance === undefined) throw new RuntimeError('ERR_INSTANCE_ID_NOT_FOUND', `unable to find workflow with the provided instance ID: ${instanceId}`);
  return instance;
}
