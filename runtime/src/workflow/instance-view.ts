/** An instance as the management API shows it (the HTTP workflow API and the gRPC runtime API's GetWorkflowBeta1). */
import type { WorkflowInstance } from './engine.js';

/**
 * Prefix of the free-form `properties` of the Get response: `svc.workflow.input`, ... on the documented `svc`
 * component; `dapr.workflow.input`, ... through the `dapr` alias, the names Dapr clients read.
 */
export function propertyPrefix(component: string): string {
  return component === 'dapr' ? 'dapr.workflow.' : 'svc.workflow.';
}

export interface WorkflowInstanceView {
  instanceID: string;
  workflowName?: string;
  createdAt: string;
  lastUpdatedAt: string;
  runtimeStatus: string;
  properties: Record<string, string>;
}

/**
 * The Get workflow body. Absent values are omitted rather than sent as "" so a client can tell
 * "no input" from "empty input"; a FAILED instance reports its failure, never a stale output.
 */
export function instanceView(instance: WorkflowInstance, prefix = propertyPrefix('svc')): WorkflowInstanceView {
  const properties: Record<string, string> = {};
  const put = (key: string, value: string | undefined) => {
    if (value !== undefined) properties[prefix + key] = value;
  };
  put('input', instance.input);
  if (instance.failureDetails === undefined) put('output', instance.output);
  put('custom_status', instance.customStatus);
  put('trace_id', instance.traceId);
  if (instance.failureDetails !== undefined) {
    put('failure.error_type', instance.failureDetails.errorType);
    put('failure.error_message', instance.failureDetails.errorMessage);
    put('failure.stack_trace', instance.failureDetails.stackTrace);
  }
  return {
    instanceID: instance.instanceId,
    ...(instance.name === '' ? {} : { workflowName: instance.name }),
    createdAt: instance.createdAt.toISOString(),
    lastUpdatedAt: instance.lastUpdatedAt.toISOString(),
    runtimeStatus: instance.runtimeStatus,
    properties,
  };
}
