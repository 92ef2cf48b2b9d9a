import './quiet-sdk.js';
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { actorStore, SvcdProcess, type ActorStore, type ActorStoreKind } from '@svc/runtime/test-support';
import type { WorkflowInstanceView } from '@svc/runtime/workflow/instance-view.js';
import { WorkerProcess, WorkerReports } from './worker-process.js';

export interface HarnessOptions {
  store?: ActorStoreKind;
  /** Start a worker process right away (default true). */
  worker?: boolean;
  args?: string[];
  env?: Record<string, string>;
}

/** The Get workflow body, as svcd defines it. */
export type InstanceBody = WorkflowInstanceView;

/**
 * One harness for the enclosing `describe`: started in a `before` hook, closed (svcd's folder and the store's
 * tables/keys removed) in an `after` hook; `use` receives it once started.
 */
export function harnessPerSuite(opts: HarnessOptions, use: (harness: WorkflowHarness) => void): void {
  let harness: WorkflowHarness | undefined;
  before(async () => {
    harness = await WorkflowHarness.start(opts);
    use(harness);
  });
  after(async () => {
    await harness?.close();
  });
}

/**
 * One real svcd with a workflow actor store, a real `@dapr/durabletask-js` worker process and client. svcd can
 * be killed and restarted on the same ports and data, the worker killed and replaced.
 */
export class WorkflowHarness {
  readonly reports = new WorkerReports();
  worker: WorkerProcess | undefined;
  private clients: TaskHubGrpcClient[] = [];

  private constructor(
    public svcd: SvcdProcess,
    readonly store: ActorStore,
    private readonly args: string[],
    private readonly env: Record<string, string>,
  ) {}

  static async start(opts: HarnessOptions = {}): Promise<WorkflowHarness> {
    const store = actorStore(opts.store ?? 'sqlite', 'wf-e2e');
    const args = opts.args ?? [];
    const env = opts.env ?? {};
    const svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, args, env });
    const harness = new WorkflowHarness(svcd, store, args, env);
    if (opts.worker !== false) await harness.startWorker();
    return harness;
  }

  async startWorker(): Promise<WorkerProcess> {
    this.worker = await WorkerProcess.start(this.svcd.grpcAddress, this.reports);
    return this.worker;
  }

  /** A durabletask-js client (closed by `close()`). */
  client(): TaskHubGrpcClient {
    const client = new TaskHubGrpcClient(this.svcd.grpcAddress);
    this.clients.push(client);
    return client;
  }

  /** kill -9 svcd, then start it again on the same ports, resources and data directory. */
  async crashAndRestart(): Promise<void> {
    await this.svcd.kill();
    this.svcd = await SvcdProcess.start({
      appId: this.store.appId,
      resourcesPath: this.svcd.resourcesPath,
      dataDir: this.svcd.dataDir,
      ports: this.svcd.ports,
      args: this.args,
      env: this.env,
    });
  }

  async close(): Promise<void> {
    await this.worker?.stop();
    // The SDK client prints a line per call and keeps timers; closing its channel is enough.
    await Promise.all(this.clients.map((c) => c.stop()));
    await this.svcd.dispose();
    await this.store.cleanup();
  }

  // --- HTTP workflow API -------------------------------------------------------------------------------------

  request(method: string, path: string, body?: string | Buffer): Promise<Response> {
    return this.svcd.request(method, path, body, body === undefined ? {} : { 'content-type': 'application/json' });
  }

  async start(workflow: string, input?: string, instanceId?: string): Promise<string> {
    const query = instanceId === undefined ? '' : `?instanceID=${instanceId}`;
    const res = await this.request('POST', `/v1.0/workflows/svc/${workflow}/start${query}`, input);
    const text = await res.text();
    if (res.status !== 202) throw new Error(`start ${workflow} answered ${res.status}: ${text}`);
    return (JSON.parse(text) as { instanceID: string }).instanceID;
  }

  async get(instanceId: string): Promise<InstanceBody> {
    const res = await this.request('GET', `/v1.0/workflows/svc/${instanceId}`);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`get ${instanceId} answered ${res.status}: ${text}`);
    return JSON.parse(text) as InstanceBody;
  }

  /** POST an instance operation; returns status and parsed body (if any). */
  async op(instanceId: string, op: string, body?: string): Promise<{ status: number; body: { errorCode?: string; message?: string } | undefined }> {
    const res = await this.request('POST', `/v1.0/workflows/svc/${instanceId}/${op}`, body);
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as { errorCode?: string }) };
  }

  // --- waiting, through the engine's own server-side waits (no polling) --------------------------------------

  async waitForCompletion(instanceId: string, timeoutSeconds = 60): Promise<InstanceBody> {
    await this.client().waitForOrchestrationCompletion(instanceId, false, timeoutSeconds);
    return this.get(instanceId);
  }

  /**
   * Starts a `parent` workflow and resolves once its sub-workflow (`<id>-child`) ran its first turn: a wait on
   * the child before it exists would answer "no such instance".
   */
  async startParent(instanceId: string): Promise<void> {
    const childRan = this.reports.next('turn', (t) => t.instanceId === `${instanceId}-child` && t.delivered);
    await this.start('parent', undefined, instanceId);
    await childRan;
  }

  async waitForStart(instanceId: string, timeoutSeconds = 30): Promise<InstanceBody> {
    await this.client().waitForOrchestrationStart(instanceId, false, timeoutSeconds);
    return this.get(instanceId);
  }
}
