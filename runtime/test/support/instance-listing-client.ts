import * as grpc from '@grpc/grpc-js';
import { loadDurableTaskProto, type OrchestrationStatus, type TaskHubSidecarServiceClient } from '@svc/proto';

export interface PurgeFilterRequest {
  readonly createdTimeFrom?: Date;
  readonly createdTimeTo?: Date;
  readonly runtimeStatus?: readonly OrchestrationStatus[];
}

/** How a call failed: its gRPC status name (`INVALID_ARGUMENT`, ...) and details; undefined when it succeeded. */
export async function rpcFailure(call: Promise<unknown>): Promise<{ code: string; details: string } | undefined> {
  try {
    await call;
    return undefined;
  } catch (err) {
    const e = err as grpc.ServiceError;
    return { code: grpc.status[e.code], details: e.details };
  }
}

const timestamp = (d: Date) => ({ seconds: Math.floor(d.getTime() / 1000), nanos: (d.getTime() % 1000) * 1e6 });

/**
 * The Durable Task multi-instance RPCs (`ListInstanceIDs`, `PurgeInstances` with a filter) as a raw gRPC client:
 * the SDKs do not all expose them (durabletask-js has no listing and sends no `recursive` with a filter).
 */
export class InstanceListingClient {
  readonly #client: TaskHubSidecarServiceClient;

  constructor(address: string) {
    this.#client = new (loadDurableTaskProto().grpc.TaskHubSidecarService)(address, grpc.credentials.createInsecure());
  }

  listPage(req: { continuationToken?: string; pageSize?: number } = {}): Promise<{ instanceIds: string[]; continuationToken?: string }> {
    return new Promise((resolve, reject) =>
      this.#client.ListInstanceIDs(req, (err, res) => {
        if (err || !res) return reject(err ?? new Error('no response'));
        resolve({ instanceIds: res.instanceIds, ...(res.continuationToken !== undefined ? { continuationToken: res.continuationToken } : {}) });
      }),
    );
  }

  /** Every page of one listing, in order; `between` runs after each page (to change the store meanwhile). */
  async listAll(pageSize: number, between?: () => Promise<void>): Promise<string[][]> {
    const pages: string[][] = [];
    let token: string | undefined;
    do {
      const page = await this.listPage({ pageSize, ...(token !== undefined ? { continuationToken: token } : {}) });
      pages.push(page.instanceIds);
      token = page.continuationToken;
      await between?.();
    } while (token !== undefined);
    return pages;
  }

  purge(filter: PurgeFilterRequest, recursive = false): Promise<number> {
    const purgeInstanceFilter = {
      ...(filter.createdTimeFrom ? { createdTimeFrom: timestamp(filter.createdTimeFrom) } : {}),
      ...(filter.createdTimeTo ? { createdTimeTo: timestamp(filter.createdTimeTo) } : {}),
      runtimeStatus: [...(filter.runtimeStatus ?? [])],
    };
    return new Promise((resolve, reject) =>
      this.#client.PurgeInstances({ purgeInstanceFilter, recursive }, (err, res) => (err || !res ? reject(err ?? new Error('no response')) : resolve(res.deletedInstanceCount))),
    );
  }

  close(): void {
    this.#client.close();
  }
}
