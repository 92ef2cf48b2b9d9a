/**
 * A Durable Task worker written with raw gRPC calls, for tests that must say exactly what a worker sends (answers
 * no SDK gives, stale or malformed ones, fields only newer SDKs send) and when.
 */
import * as grpc from '@grpc/grpc-js';
import { loadDurableTaskProto, type OrchestratorAction, type TaskHubSidecarServiceClient, type WorkItem__Output } from '@svc/proto';

/** A raw client on its own connection, as a separate worker process would have. */
export function rawClient(address: string): TaskHubSidecarServiceClient {
  const proto = loadDurableTaskProto();
  // A channel option no other client uses: grpc-js would otherwise share one connection between clients.
  return new proto.grpc.TaskHubSidecarService(address, grpc.credentials.createInsecure(), { 'grpc.raw_worker_id': Math.random() });
}

/** Reads its `GetWorkItems` stream into `items`; answers only when the test says so. */
export class RawWorker {
  readonly client: TaskHubSidecarServiceClient;
  readonly items: WorkItem__Output[] = [];
  #stream: grpc.ClientReadableStream<WorkItem__Output> | undefined;
  #waiters: (() => void)[] = [];

  constructor(address: string) {
    this.client = rawClient(address);
  }

  connect(): void {
    this.#stream = this.client.GetWorkItems({});
    this.#stream.on('data', (item: WorkItem__Output) => {
      this.items.push(item);
      for (const w of this.#waiters.splice(0)) w();
    });
    this.#stream.on('error', () => undefined);
  }

  /** Drops the stream (as when the worker's connection breaks); the channel stays for late answers. */
  dropStream(): void {
    this.#stream?.cancel();
  }

  /** The `count`-th item received (1-based), once it came. */
  async nextItem(count: number): Promise<WorkItem__Output> {
    while (this.items.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return this.items[count - 1] as WorkItem__Output;
  }

  /** The latest orchestration batch received for `instanceId`, once one came. */
  async orchestrationItem(instanceId: string): Promise<WorkItem__Output> {
    for (;;) {
      const item = this.items.findLast((i) => i.orchestratorRequest?.instanceId === instanceId);
      if (item) return item;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  completeOrchestration(instanceId: string, actions: OrchestratorAction[], completionToken = ''): Promise<grpc.ServiceError | null> {
    return new Promise((resolve) => this.client.CompleteOrchestratorTask({ instanceId, actions, completionToken }, (err) => resolve(err)));
  }

  completeActivity(instanceId: string, taskId: number, result: string, completionToken = ''): Promise<grpc.ServiceError | null> {
    return new Promise((resolve) => this.client.CompleteActivityTask({ instanceId, taskId, result: { value: result }, completionToken }, (err) => resolve(err)));
  }

  close(): void {
    this.#stream?.cancel();
    this.client.close();
  }
}
