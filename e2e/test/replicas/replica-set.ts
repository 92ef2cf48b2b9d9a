import '../workflow/support/quiet-sdk.js';
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { actorStore, SvcdProcess, type ActorStore, type ActorStoreKind } from '@svc/runtime/test-support';
import type { WorkflowInstanceView } from '@svc/runtime/workflow/instance-view.js';
import { WorkerProcess, WorkerReports } from '../workflow/support/worker-process.js';

export interface ReplicaSetOptions {
  readonly store: ActorStoreKind;
  readonly replicas: number;
  /** Extra svcd flags (e.g. shorter placement leases). */
  readonly args?: readonly string[];
  /** One real durabletask-js worker per replica, connected to that replica (default true). */
  readonly workers?: boolean;
  /** More component files for every replica (file name → YAML), beside the actor store. */
  readonly resources?: Readonly<Record<string, string>>;
}

interface PlacementMetadata {
  placement: string;
  hostId: string;
  partitions: { partition: number; epoch: number }[];
  peers: { hostId: string; address: string; workers: number; partitions: number }[];
}

/**
 * K real svcd replicas of ONE app on one Redis or PostgreSQL actor store — what a Deployment with K replicas
 * gives — each with its own real `@dapr/durabletask-js` worker process (as each pod's app connects to its own
 * sidecar). Reports of every worker go to one log, so a test can check what ran where and how often.
 */
export class ReplicaSet {
  readonly reports = new WorkerReports();
  readonly workers: (WorkerProcess | undefined)[] = [];
  readonly #clients: TaskHubGrpcClient[] = [];
  readonly #dead = new Set<number>();

  private constructor(
    readonly replicas: SvcdProcess[],
    readonly store: ActorStore,
    private readonly opts: ReplicaSetOptions,
  ) {}

  static async start(opts: ReplicaSetOptions): Promise<ReplicaSet> {
    const store = actorStore(opts.store, 'replicas');
    const replicas: SvcdProcess[] = [];
    const set = new ReplicaSet(replicas, store, opts);
    for (let i = 0; i < opts.replicas; i++) replicas.push(await set.#startReplica());
    await set.balanced();
    if (opts.workers !== false) for (let i = 0; i < opts.replicas; i++) await set.startWorker(i);
    return set;
  }

  /** Starts the worker process of replica i (connected to that replica only). */
  async startWorker(i: number): Promise<WorkerProcess> {
    const worker = await WorkerProcess.start(this.replicas[i]!.grpcAddress, this.reports);
    this.workers[i] = worker;
    return worker;
  }

  #startReplica(): Promise<SvcdProcess> {
    return SvcdProcess.start({ appId: this.store.appId, resources: { ...this.store.resources, ...this.opts.resources }, args: ['--internal-grpc-port', '0', ...(this.opts.args ?? [])] });
  }

  /** A live replica chosen at random (every replica must answer every request as the owner would). */
  any(): SvcdProcess {
    const live = this.replicas.filter((_, i) => !this.#dead.has(i));
    return live[Math.floor(Math.random() * live.length)]!;
  }

  /** A durabletask-js client on a random live replica. */
  client(on: SvcdProcess = this.any()): TaskHubGrpcClient {
    const c = new TaskHubGrpcClient(on.grpcAddress);
    this.#clients.push(c);
    return c;
  }

  async placement(replica: SvcdProcess): Promise<PlacementMetadata> {
    const res = await replica.request('GET', '/v1.0/metadata');
    return ((await res.json()) as { actorRuntime: PlacementMetadata }).actorRuntime;
  }

  /** Resolves once every live replica sees every live replica and the 64 partitions are owned once each. */
  async balanced(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const live = this.replicas.filter((_, i) => !this.#dead.has(i));
      // A replica just thawed may close a kept-alive connection under the first request: that is "not yet".
      const views = await Promise.all(live.map((r) => this.placement(r))).catch(() => []);
      const owned = views.flatMap((v) => v.partitions.map((p) => p.partition));
      const share = Math.floor(64 / live.length);
      if (
        views.length === live.length &&
        views.every((v) => v.peers.length === live.length) &&
        owned.length === 64 &&
        new Set(owned).size === 64 &&
        views.every((v) => v.partitions.length >= share && v.partitions.length <= share + 1)
      ) {
        return;
      }
      if (Date.now() > deadline) throw new Error(`replicas did not balance: ${JSON.stringify(views.map((v) => ({ host: v.hostId, owned: v.partitions.length, peers: v.peers.length })))}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** kill -9 of replica i (its worker stays, as a pod's app would until the pod goes). */
  async kill(i: number): Promise<void> {
    this.#dead.add(i);
    await this.replicas[i]!.kill();
  }

  /**
   * A killed replica's pod comes back, as its Deployment replaces it: a new svcd (new ports, the same store) and a
   * new worker process (the SDK worker does not reconnect after its sidecar died mid-stream).
   */
  async restart(i: number): Promise<void> {
    await this.workers[i]?.kill();
    await this.replicas[i]!.dispose();
    this.replicas[i] = await this.#startReplica();
    this.#dead.delete(i);
    if (this.opts.workers !== false) await this.startWorker(i);
  }

  /** Graceful stop (SIGTERM) of replica i, as Kubernetes does in a rolling update; resolves once it exited. */
  async stop(i: number): Promise<void> {
    this.#dead.add(i);
    await this.replicas[i]!.stop();
  }

  /** SIGSTOP / SIGCONT: a replica frozen (long GC, paused VM) and thawed. */
  freeze(i: number): void {
    this.replicas[i]!.child.kill('SIGSTOP');
    this.#dead.add(i);
  }

  thaw(i: number): void {
    this.replicas[i]!.child.kill('SIGCONT');
    this.#dead.delete(i);
  }

  async start(workflow: string, input: string | undefined, instanceId: string, via: SvcdProcess = this.any()): Promise<void> {
    const res = await via.request('POST', `/v1.0/workflows/svc/${workflow}/start?instanceID=${instanceId}`, input, input === undefined ? {} : { 'content-type': 'application/json' });
    if (res.status !== 202) throw new Error(`start ${workflow} answered ${res.status}: ${await res.text()}`);
  }

  async get(instanceId: string, via: SvcdProcess = this.any()): Promise<{ status: number; body: WorkflowInstanceView }> {
    const res = await via.request('GET', `/v1.0/workflows/svc/${instanceId}`);
    return { status: res.status, body: (await res.json()) as WorkflowInstanceView };
  }

  async op(instanceId: string, op: string, body?: string, via: SvcdProcess = this.any()): Promise<number> {
    const res = await via.request('POST', `/v1.0/workflows/svc/${instanceId}/${op}`, body, body === undefined ? {} : { 'content-type': 'application/json' });
    await res.arrayBuffer();
    return res.status;
  }

  /** Waits through the Durable Task API of a random replica (routed to the owner's server-side wait). */
  async waitForCompletion(instanceId: string, timeoutSeconds = 60): Promise<WorkflowInstanceView> {
    await this.client().waitForOrchestrationCompletion(instanceId, false, timeoutSeconds);
    return (await this.get(instanceId)).body;
  }

  /** Prometheus counter value of one replica (0 when absent). */
  async metric(i: number, name: string): Promise<number> {
    const port = this.replicas[i]!.ports.metrics;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  }

  async close(): Promise<void> {
    for (const i of this.#dead) this.replicas[i]!.child.kill('SIGCONT');
    await Promise.all(this.workers.filter((w) => w !== undefined).map((w) => w.stop()));
    await Promise.all(this.#clients.map((c) => c.stop()));
    await Promise.all(this.replicas.map((r) => r.dispose()));
    await this.store.cleanup();
  }
}
