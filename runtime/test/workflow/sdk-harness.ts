/**
 * A real svcd (SQLite actor store) plus real `@dapr/durabletask-js` workers and clients on its gRPC port, for
 * the workflow engine's integration tests.
 */
import { TaskHubGrpcClient, TaskHubGrpcWorker } from '@dapr/durabletask-js';
import { componentYaml, SvcdProcess, type ActorStoreKind, type SvcdOptions } from '../support/index.js';

/** Numeric statuses as the SDK reports them. */
export const SDK_STATUS = { RUNNING: 0, COMPLETED: 1, FAILED: 3, TERMINATED: 5, PENDING: 6, SUSPENDED: 7 } as const;

export const ACTOR_STORE_YAML = componentYaml('wfstore', 'state.sqlite', { actorStateStore: 'true' });

/** The actor stores the engine is tested on (`actorStore(kind)` isolates each run and cleans up after it). */
export const ACTOR_STORES: readonly { name: string; kind: ActorStoreKind }[] = [
  { name: 'SQLite', kind: 'sqlite' },
  { name: 'Redis', kind: 'redis' },
  { name: 'PostgreSQL', kind: 'postgresql' },
];

type Registration = (worker: TaskHubGrpcWorker) => void;

/** The SDK logs every step to the console; keep test output readable (restored by `restoreConsole`). */
const original = { log: console.log, info: console.info, debug: console.debug };
export function quietConsole(): void {
  console.log = () => undefined;
  console.info = () => undefined;
  console.debug = () => undefined;
}
export function restoreConsole(): void {
  Object.assign(console, original);
}

export class WorkflowHarness {
  readonly workers: TaskHubGrpcWorker[] = [];
  readonly clients: TaskHubGrpcClient[] = [];

  private constructor(public svcd: SvcdProcess) {}

  static async start(opts: SvcdOptions = {}): Promise<WorkflowHarness> {
    const svcd = await SvcdProcess.start({ resources: { 'store.yaml': ACTOR_STORE_YAML }, ...opts });
    return new WorkflowHarness(svcd);
  }

  /** A started worker with the given orchestrators/activities. */
  async worker(register: Registration): Promise<TaskHubGrpcWorker> {
    const worker = new TaskHubGrpcWorker(this.svcd.grpcAddress);
    register(worker);
    await worker.start();
    this.workers.push(worker);
    return worker;
  }

  client(): TaskHubGrpcClient {
    const client = new TaskHubGrpcClient(this.svcd.grpcAddress);
    this.clients.push(client);
    return client;
  }

  async stopWorker(worker: TaskHubGrpcWorker): Promise<void> {
    this.workers.splice(this.workers.indexOf(worker), 1);
    await worker.stop();
  }

  /** Number of connected workers as `/v1.0/metadata` reports it. */
  async connectedWorkers(): Promise<number> {
    const res = await this.svcd.request('GET', '/v1.0/metadata');
    const body = (await res.json()) as { workflows?: { connectedWorkers?: number } };
    return body.workflows?.connectedWorkers ?? -1;
  }

  async close(): Promise<void> {
    for (const w of this.workers.splice(0)) await w.stop().catch(() => undefined);
    for (const c of this.clients.splice(0)) await c.stop().catch(() => undefined);
    await this.svcd.dispose();
  }
}
