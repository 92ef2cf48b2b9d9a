/**
 * What the workflow engine logs when work cannot go where it was meant to: a worker found unresponsive (what it
 * held goes to other workers), a dormant batch that could not be built again (it is tried again after a pause).
 */
import { ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import type { UnresponsiveReason } from './dispatcher-events.js';
import type { WorkItem, WorkerConnection } from './work-items.js';

export function warnUnresponsive(log: Logger, worker: WorkerConnection, reason: UnresponsiveReason, reoffered: readonly WorkItem[]): void {
  log.warn(
    { worker: worker.id, peer: worker.peer, reason, reoffered: reoffered.length, instances: [...new Set(reoffered.map((i) => i.instanceId))].slice(0, 10) },
    reason === 'task_timeout'
      ? 'workflow worker left an orchestration task unanswered past the workflow-task timeout: its work goes to other workers'
      : 'workflow worker stopped reading its work item stream for longer than the workflow-task timeout: its work goes to other workers',
  );
}

/** Logs the failure, then passes it on (the batch stays dormant; the wakes pause). */
export function warnWakeFailed(log: Logger, instanceId: string, err: unknown): never {
  log.warn({ instanceId, err: ensureError(err).message }, 'could not build a waiting workflow batch again; it waits on and is tried again after a pause');
  throw err;
}
