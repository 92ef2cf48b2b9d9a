/**
 * Rerun from an event (the Durable Task `RerunWorkflowFromEvent` RPC): a NEW instance whose history is a finished
 * instance's history cut just after one of its activities (TaskScheduled) or sub-workflow starts
 * (SubOrchestrationInstanceCreated). Everything the cut leaves without a result runs again: that activity (with
 * a new input if asked), and any other activity, timer or sub-workflow open at that point. The source instance is
 * not changed. Pure: the orchestration actor of the new instance adopts the result.
 */
import { randomUUID } from 'node:crypto';
import { RuntimeError } from '../errors/runtime-error.js';
import type { HistoryEvent, TraceContext } from './history.js';
import { taskScheduled } from './history-events.js';
import { newSpanId } from './trace-context.js';

export interface RerunRequest {
  sourceInstanceId: string;
  /** Id of the TaskScheduled or SubOrchestrationInstanceCreated event to rerun from. */
  eventId: number;
  /** Generated (UUID v4) when absent. */
  newInstanceId?: string;
  /** Replaces the input of the rerun activity when `overwriteInput` is set (undefined: no input). */
  input?: string;
  overwriteInput?: boolean;
  /** ID for the sub-workflow the cut restarts, when rerunning from a sub-workflow start. */
  newChildInstanceId?: string;
}

/** Sub-workflows the rerun starts again get IDs of their own: the source's children are left as they are. */
const childIdOf = (newInstanceId: string, eventId: number) => `${newInstanceId}:${eventId.toString(16).padStart(4, '0')}`;

/**
 * The new instance's workflow name and history: the source's, cut after the event, renamed for the new instance.
 * The source must have finished (its history ends with its completion; continue-as-new starts a new history).
 */
export function rerunHistory(source: readonly HistoryEvent[], req: RerunRequest & { newInstanceId: string }, parentTrace?: TraceContext): { name: string; events: HistoryEvent[] } {
  const end = source.at(-1);
  if (end?.type !== 'ExecutionCompleted') {
    throw new RuntimeError('ERR_RERUN_WORKFLOW_NOT_COMPLETED', `workflow '${req.sourceInstanceId}' has not finished: only a completed, failed or terminated workflow can be rerun`);
  }
  const at = source.findIndex((e) => (e.type === 'TaskScheduled' || e.type === 'SubOrchestrationInstanceCreated') && e.eventId === req.eventId);
  if (at < 0) {
    throw new RuntimeError(
      'ERR_RERUN_EVENT_INVALID',
      `workflow '${req.sourceInstanceId}' has no activity or sub-workflow start with event ID ${req.eventId} to rerun from`,
    );
  }
  if (req.overwriteInput && source[at]?.type !== 'TaskScheduled') {
    throw new RuntimeError('ERR_RERUN_EVENT_INVALID', `event ${req.eventId} of workflow '${req.sourceInstanceId}' starts a sub-workflow: only an activity's input can be replaced`);
  }
  const events = source.slice(0, at + 1).map((e, i): HistoryEvent => {
    switch (e.type) {
      case 'ExecutionStarted': {
        // A rerun is a top-level instance of its own, traced under the call that asked for it (not the source's run).
        const { parent: _parent, trace: _trace, ...rest } = e;
        return { ...rest, instanceId: req.newInstanceId, executionId: randomUUID(), ...(parentTrace ? { trace: { parent: parentTrace, spanId: newSpanId() } } : {}) };
      }
      case 'TaskScheduled':
        if (i !== at || !req.overwriteInput) return e;
        return taskScheduled(e, e.name, req.input);
      case 'SubOrchestrationInstanceCreated':
        return { ...e, instanceId: i === at && req.newChildInstanceId ? req.newChildInstanceId : childIdOf(req.newInstanceId, e.eventId) };
      default:
        return e;
    }
  });
  return { name: startedName(source), events };
}

/** The workflow name a history's run started with ('' when it has no start). */
export function startedName(history: readonly HistoryEvent[]): string {
  const started = history.find((e) => e.type === 'ExecutionStarted');
  return started?.type === 'ExecutionStarted' ? started.name : '';
}
