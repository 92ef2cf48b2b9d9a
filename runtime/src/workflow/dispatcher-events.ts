/**
 * The work dispatcher's (dispatcher.ts) settings, and what it tells the engine that owns it.
 */
import type { WorkerConnection, WorkItem } from './work-items.js';

export const DEFAULT_MAX_PER_WORKER = 100;
/** Temporal's default workflow task timeout; svcd's `--workflow-task-timeout`. */
export const DEFAULT_TASK_TIMEOUT_MS = 10_000;

export interface DispatcherOptions {
  /** Unanswered items one worker may hold (SDK workers drop what exceeds their own local queue). */
  maxPerWorker?: number;
  /** How long a worker may leave an orchestration batch unanswered, or its stream blocked, before it counts as unresponsive; 0: for ever. */
  taskTimeoutMs?: number;
}

/** Why a worker was found unresponsive. */
export type UnresponsiveReason = 'task_timeout' | 'stream_blocked';

export interface DispatcherEvents {
  dispatched?(item: WorkItem): void;
  workersChanged?(count: number): void;
  /** A worker was found unresponsive; `reoffered` items it held went back to the queue. */
  workerUnresponsive?(worker: WorkerConnection, reason: UnresponsiveReason, reoffered: readonly WorkItem[]): void;
  /** An instance's orchestration item is no longer here (answered, let go after a failed recording, withdrawn). */
  orchestrationLeft?(instanceId: string): void;
  /** Builds an instance's batch again and offers it (settles when that is done); without it no batch is dormant. */
  wakeDormant?(instanceId: string): Promise<void>;
}
