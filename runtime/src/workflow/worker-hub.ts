/**
 * The worker side of the workflow engine as the Durable Task gRPC service uses it: worker connections in, their
 * answers recorded; and what an answer that refuses the work ("not registered") looks like from each SDK.
 */
import type { WorkflowInstance } from './engine.js';
import type { FailureDetails } from './history.js';
import type { WorkerAction } from './instance.js';
import type { AnswerOrigin, WorkerConnection } from './work-items.js';

/** The worker side of the engine, used by the Durable Task gRPC service. */
export interface WorkerHub {
  readonly workerCount: number;
  /** The connected SDK workers of this svcd (not other replicas'). */
  readonly localWorkers: readonly WorkerConnection[];
  /** The worker an activity is out with on this svcd (see `WorkDispatcher.activityWorker`). */
  activityWorker(instanceId: string, taskId: number): WorkerConnection | undefined;
  /** The instance's next turn, when this svcd holds its batch: queued (no worker) or out with a worker. */
  pendingTurn(instanceId: string): { worker?: WorkerConnection } | undefined;
  connect(worker: WorkerConnection): void;
  disconnect(worker: WorkerConnection): void;
  /** The worker's stream stopped taking writes (flow control) / takes them again: blocked too long, it is unresponsive. */
  writeBlocked(worker: WorkerConnection): void;
  writeDrained(worker: WorkerConnection): void;
  /**
   * Records a worker's orchestration result; unknown or stale results (another completion token, another client)
   * are ignored and counted. A malformed answer fails the instance and rejects with ERR_MALFORMED_REQUEST.
   */
  completeOrchestration(instanceId: string, actions: WorkerAction[], customStatus: string | undefined, origin?: AnswerOrigin): Promise<void>;
  /** Records an activity result (exactly once per scheduled task); unknown or stale results are ignored and counted. */
  completeActivity(instanceId: string, taskId: number, outcome: ActivityOutcome, origin?: AnswerOrigin): Promise<void>;
  /** Ends every worker stream cleanly and ends pending waits (before the gRPC server stops). */
  closeWorkers(): void;
}

export type ActivityOutcome = { result?: string } | { failureDetails: NonNullable<WorkflowInstance['failureDetails']> };

/**
 * Failure types the SDKs answer with when they have not registered the workflow or activity: durabletask-js
 * (the error's class name) and durabletask-go (activities by type; workflows only by message).
 */
const NOT_REGISTERED_TYPES = new Set(['OrchestratorNotRegisteredError', 'ActivityNotRegisteredError', 'TaskActivityNotRegistered']);
const NOT_REGISTERED_MESSAGE = /^orchestrator named '.*' is not registered$/;

export function isNotRegistered(f: FailureDetails | undefined): boolean {
  return f !== undefined && (NOT_REGISTERED_TYPES.has(f.errorType) || NOT_REGISTERED_MESSAGE.test(f.errorMessage));
}
