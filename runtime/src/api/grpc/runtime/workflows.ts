/**
 * Workflow management over gRPC, Alpha1 and Beta1 names alike, on `WorkflowManagementApi` (the HTTP API's).
 * Dapr clients name the component `dapr` (or leave it empty): then properties are `dapr.workflow.*`.
 */
import type { GetWorkflowRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/GetWorkflowRequest.js';
import type { GetWorkflowResponse } from '@svc/proto/gen/svc/proto/runtime/v1/GetWorkflowResponse.js';
import type { PurgeWorkflowRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/PurgeWorkflowRequest.js';
import type { RaiseEventWorkflowRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/RaiseEventWorkflowRequest.js';
import type { StartWorkflowRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/StartWorkflowRequest.js';
import type { StartWorkflowResponse } from '@svc/proto/gen/svc/proto/runtime/v1/StartWorkflowResponse.js';
import type { WorkflowManagementApi } from '../../../workflow/management-api.js';
import type { Handler, HandlerGroup } from './handler.js';

const component = (req: { workflowComponent: string }): string => req.workflowComponent || 'dapr';

function timestamp(iso: string): { seconds: string; nanos: number } {
  const ms = Date.parse(iso);
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

type InstanceRequest = { instanceId: string; workflowComponent: string };

export function workflowHandlers(api: WorkflowManagementApi): HandlerGroup {
  const empty = {};
  const command =
    (run: (component: string, id: string) => Promise<void>): Handler<InstanceRequest, object> =>
    async (req) => {
      await run(component(req), req.instanceId);
      return empty;
    };
  const methods = {
    StartWorkflow: (async (req) => ({
      instanceId: await api.start(component(req), req.workflowName, req.instanceId || undefined, req.input),
    })) satisfies Handler<StartWorkflowRequest__Output, StartWorkflowResponse>,
    GetWorkflow: (async (req) => {
      const view = await api.get(component(req), req.instanceId);
      return {
        instanceId: view.instanceID,
        workflowName: view.workflowName ?? '',
        createdAt: timestamp(view.createdAt),
        lastUpdatedAt: timestamp(view.lastUpdatedAt),
        runtimeStatus: view.runtimeStatus,
        properties: view.properties,
      };
    }) satisfies Handler<GetWorkflowRequest__Output, GetWorkflowResponse>,
    TerminateWorkflow: command((c, id) => api.terminate(c, id)),
    PauseWorkflow: command((c, id) => api.pause(c, id)),
    ResumeWorkflow: command((c, id) => api.resume(c, id)),
    PurgeWorkflow: command((c, id) => api.purge(c, id)) satisfies Handler<PurgeWorkflowRequest__Output, object>,
    RaiseEventWorkflow: (async (req) => {
      await api.raiseEvent(component(req), req.instanceId, req.eventName, req.eventData);
      return empty;
    }) satisfies Handler<RaiseEventWorkflowRequest__Output, object>,
  };
  const group: HandlerGroup = {};
  for (const [name, handler] of Object.entries(methods)) {
    group[`${name}Alpha1`] = handler;
    group[`${name}Beta1`] = handler;
  }
  return group;
}
