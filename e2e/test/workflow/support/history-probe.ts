import type { TaskHubGrpcWorker } from '@dapr/durabletask-js';
import type { WorkerMessage } from './messages.js';

/** The parts of the SDK's generated protobuf classes the probe reads (the SDK ships no types for them). */
interface HistoryEvent {
  hasTaskcompleted(): boolean;
  getTaskcompleted(): { getTaskscheduledid(): number } | undefined;
  hasTaskfailed(): boolean;
  getTaskfailed(): { getTaskscheduledid(): number } | undefined;
}
interface OrchestratorRequest {
  getInstanceid(): string;
  getPasteventsList(): HistoryEvent[];
  getNeweventsList(): HistoryEvent[];
}
interface Stub {
  completeOrchestratorTask(res: unknown, cb: (err: Error | null) => void): void;
}
type ExecuteOrchestrator = (req: OrchestratorRequest, stub: Stub) => Promise<void>;

/**
 * Test instrumentation: before the SDK executes an orchestrator work item, counts the TaskCompleted/TaskFailed
 * events per taskScheduledId in the history svcd sent (past + new events), and after it answers, whether the
 * answer reached svcd. This is how tests see the engine's history: exactly what a worker is given to replay.
 */
export function observeHistory(worker: TaskHubGrpcWorker, report: (msg: WorkerMessage) => void): void {
  const target = worker as unknown as { _executeOrchestrator: ExecuteOrchestrator };
  const original = target._executeOrchestrator.bind(worker);
  target._executeOrchestrator = async (req, stub) => {
    const results: Record<string, number> = {};
    for (const event of [...req.getPasteventsList(), ...req.getNeweventsList()]) {
      const done = event.hasTaskcompleted() ? event.getTaskcompleted() : event.hasTaskfailed() ? event.getTaskfailed() : undefined;
      if (done) results[done.getTaskscheduledid()] = (results[done.getTaskscheduledid()] ?? 0) + 1;
    }
    let delivered = true;
    const watched: Stub = {
      completeOrchestratorTask: (res, cb) =>
        stub.completeOrchestratorTask(res, (err) => {
          if (err) delivered = false;
          cb(err);
        }),
    };
    await original(req, watched);
    report({ kind: 'turn', instanceId: req.getInstanceid(), results, delivered });
  };
}
