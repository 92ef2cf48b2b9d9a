/**
 * The Durable Task sidecar protocol (`TaskHubSidecarService`, no proto package), spoken by the workflow SDKs on
 * svcd's gRPC API port. Message types are re-exported so the runtime converts to and from the wire in one place.
 */
import path from 'node:path';
import type protobuf from 'protobufjs';
import type { TaskHubSidecarServiceClient, TaskHubSidecarServiceDefinition } from './gen/TaskHubSidecarService.js';
import { packageDefinitionOf, type PackageDefinition } from './package-definition.js';
import { loadProtoRoot, servedServiceOnUse, serviceClient, type ServiceClientClass } from './served-service.js';

export type { HistoryEvent, HistoryEvent__Output } from './gen/HistoryEvent.js';
export type { OrchestratorAction, OrchestratorAction__Output } from './gen/OrchestratorAction.js';
export type { CreateTimerAction__Output } from './gen/CreateTimerAction.js';
export type { OrchestratorRequest } from './gen/OrchestratorRequest.js';
export type { OrchestratorResponse__Output } from './gen/OrchestratorResponse.js';
export type { ActivityRequest } from './gen/ActivityRequest.js';
export type { ActivityResponse__Output } from './gen/ActivityResponse.js';
export type { WorkItem, WorkItem__Output } from './gen/WorkItem.js';
export type { GetInstanceHistoryRequest__Output } from './gen/GetInstanceHistoryRequest.js';
export type { GetInstanceHistoryResponse } from './gen/GetInstanceHistoryResponse.js';
export type { ListInstanceIDsRequest__Output } from './gen/ListInstanceIDsRequest.js';
export type { ListInstanceIDsResponse } from './gen/ListInstanceIDsResponse.js';
export type { RerunWorkflowFromEventRequest__Output } from './gen/RerunWorkflowFromEventRequest.js';
export type { RerunWorkflowFromEventResponse } from './gen/RerunWorkflowFromEventResponse.js';
export type { OrchestrationIdReusePolicy__Output } from './gen/OrchestrationIdReusePolicy.js';
export type { TaskFailureDetails, TaskFailureDetails__Output } from './gen/TaskFailureDetails.js';
export type { TraceContext, TraceContext__Output } from './gen/TraceContext.js';
export type { OrchestrationState } from './gen/OrchestrationState.js';
export type { OrchestrationStatus } from './gen/OrchestrationStatus.js';
export type { CreateInstanceRequest__Output } from './gen/CreateInstanceRequest.js';
export type { CreateInstanceResponse } from './gen/CreateInstanceResponse.js';
export type { GetInstanceRequest__Output } from './gen/GetInstanceRequest.js';
export type { GetInstanceResponse } from './gen/GetInstanceResponse.js';
export type { RaiseEventRequest__Output } from './gen/RaiseEventRequest.js';
export type { TerminateRequest__Output } from './gen/TerminateRequest.js';
export type { SuspendRequest__Output } from './gen/SuspendRequest.js';
export type { ResumeRequest__Output } from './gen/ResumeRequest.js';
export type { PurgeInstancesRequest__Output } from './gen/PurgeInstancesRequest.js';
export type { PurgeInstancesResponse } from './gen/PurgeInstancesResponse.js';
export type { PurgeInstanceFilter__Output } from './gen/PurgeInstanceFilter.js';
export type { Timestamp, Timestamp__Output } from './gen/google/protobuf/Timestamp.js';
export type { TaskHubSidecarServiceClient } from './gen/TaskHubSidecarService.js';

export const DURABLETASK_PROTO_FILE = path.join('durabletask', 'orchestrator_service.proto');

export interface DurableTaskProto {
  /** For `addService`: paths and message conversions only. */
  readonly service: TaskHubSidecarServiceDefinition;
  /** proto-loader's package definition, for reflection (a second parse). */
  readonly packageDefinition: () => Promise<PackageDefinition>;
  /** The typed client, for tests and tools. */
  readonly grpc: { readonly TaskHubSidecarService: ServiceClientClass<TaskHubSidecarServiceClient> };
  /** The parsed protocol, for hand-made encoding and decoding (work-item-encoding.ts). */
  readonly root: protobuf.Root;
}

let cache: DurableTaskProto | undefined;

/** Loaded once per process. The service path is `/TaskHubSidecarService/<Rpc>`. */
export function loadDurableTaskProto(): DurableTaskProto {
  if (!cache) {
    let root: protobuf.Root | undefined;
    const rootNow = () => (root ??= loadProtoRoot([DURABLETASK_PROTO_FILE]));
    let clients: DurableTaskProto['grpc'] | undefined;
    cache = {
      service: servedServiceOnUse<TaskHubSidecarServiceDefinition>([DURABLETASK_PROTO_FILE], rootNow, 'TaskHubSidecarService'),
      packageDefinition: () => packageDefinitionOf(DURABLETASK_PROTO_FILE),
      get grpc() {
        return (clients ??= { TaskHubSidecarService: serviceClient<TaskHubSidecarServiceClient>(rootNow(), 'TaskHubSidecarService') });
      },
      get root() {
        return rootNow();
      },
    };
  }
  return cache;
}
