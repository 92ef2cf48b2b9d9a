/**
 * A finished workflow instance as its metadata and two history events tell it: its ExecutionStarted (input)
 * and ExecutionCompleted (status, output, failure). Reading a finished instance, or dropping an event sent to
 * it, needs nothing more; loading the whole history for that (200,000 events after a large fan-out) made every
 * late read or duplicate result of a finished instance as costly as its biggest turn.
 */
import type { RuntimeStatus, WorkflowInstance } from './engine.js';
import type { EventOf } from './history.js';
import type { InstanceMeta } from './stored-meta.js';
import { traceIdOf } from './trace-context.js';

export class FinishedInstance {
  readonly isTerminal = true;

  constructor(
    readonly meta: InstanceMeta,
    private readonly started: EventOf<'ExecutionStarted'> | undefined,
    private readonly completed: EventOf<'ExecutionCompleted'>,
  ) {}

  get status(): RuntimeStatus {
    return this.completed.status === 'CONTINUED_AS_NEW' ? 'RUNNING' : this.completed.status;
  }

  snapshot(instanceId: string): WorkflowInstance {
    return snapshotOf(instanceId, this.meta, this.status, this.started, this.completed);
  }
}

/** The client's view of an instance (`Instance.snapshot`, `FinishedInstance.snapshot`). */
export function snapshotOf(
  instanceId: string,
  meta: InstanceMeta,
  status: RuntimeStatus,
  start: EventOf<'ExecutionStarted'> | undefined,
  completed: EventOf<'ExecutionCompleted'> | undefined,
): WorkflowInstance {
  const out: WorkflowInstance = {
    instanceId,
    name: meta.name,
    runtimeStatus: status,
    createdAt: new Date(meta.createdAt),
    lastUpdatedAt: new Date(meta.lastUpdatedAt),
  };
  if (meta.scheduledStartTime !== undefined) out.scheduledStartTime = new Date(meta.scheduledStartTime);
  if (start?.input !== undefined) out.input = start.input;
  if (completed?.result !== undefined) out.output = completed.result;
  if (completed?.failureDetails) out.failureDetails = completed.failureDetails;
  if (meta.customStatus !== undefined) out.customStatus = meta.customStatus;
  if (meta.parent) out.parentInstanceId = meta.parent.instanceId;
  const traceId = traceIdOf(start?.trace?.parent);
  if (traceId !== undefined) out.traceId = traceId;
  return out;
}
