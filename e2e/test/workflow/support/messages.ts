/** What a worker child process reports to the test over IPC, so tests wait on events instead of polling. */
export type WorkerMessage =
  | { kind: 'connected' }
  | { kind: 'activity-start'; instanceId: string; taskId: number; step: number }
  | { kind: 'activity-done'; instanceId: string; taskId: number; step: number; token: string }
  /**
   * One orchestrator work item as the engine delivered it: how many TaskCompleted/TaskFailed events the history
   * holds per taskScheduledId, and whether the worker's answer reached svcd.
   */
  | { kind: 'turn'; instanceId: string; results: Record<string, number>; delivered: boolean };
