/**
 * What the dispatcher (dispatcher.ts) hands out and to whom: work items (an orchestration batch, an activity),
 * the connection of a worker that runs them, and how an answer is matched to its hand-out.
 */
import type { TraceContext } from './history.js';
import type { TurnPlan } from './instance.js';

export interface OrchestrationItem extends TurnPlan {
  kind: 'orchestration';
  instanceId: string;
  /** Workflow name: what a worker must have registered to run the batch. */
  name: string;
}

/**
 * Every field spelled out: the item may wait in the dispatcher for long (100,000 instances waiting for a worker),
 * and a spread of the batch after the first fields put six of them in a properties array of their own.
 */
export function orchestrationItem(instanceId: string, name: string, batch: TurnPlan): OrchestrationItem {
  const { generation, historyLength, pastEvents, newEvents, seqs } = batch;
  return { kind: 'orchestration', instanceId, name, generation, historyLength, pastEvents, newEvents, seqs };
}

export interface ActivityItem {
  kind: 'activity';
  instanceId: string;
  generation: number;
  taskId: number;
  name: string;
  input?: string;
  /** The activity's span (traced runs only): `ActivityRequest.parentTraceContext`, for an SDK that traces. */
  parentTrace?: TraceContext;
}

export type WorkItem = OrchestrationItem | ActivityItem;

export interface WorkerConnection {
  readonly id: number;
  /** Another replica's workers (dispatcher.ts, "Several replicas"); local SDK streams leave it unset. */
  readonly remote?: boolean;
  /** The client behind the stream (its gRPC peer address): answers without a token must come from it. */
  readonly peer?: string;
  /** Writes the item with its completion token to the worker; false when the connection is already gone. */
  send(item: WorkItem, completionToken: string): boolean;
  /** Ends the connection cleanly (status OK). */
  close(): void;
}

/** Where an answer came from: the token it echoed (empty or absent when the SDK echoes none) and its client. */
export interface AnswerOrigin {
  readonly token?: string;
  readonly peer?: string;
}

/** Why an answer was ignored: nothing outstanding, already answered, or it answers an earlier hand-out. */
export type StaleReason = 'unknown' | 'claimed' | 'token' | 'connection';

export type Claim<T extends WorkItem> = { item: T; worker: WorkerConnection } | { stale: StaleReason };
