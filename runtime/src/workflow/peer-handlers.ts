import { RuntimeError } from '../errors/runtime-error.js';
import type { ActorWorkflowEngine } from './actor-engine.js';
import type { WorkItem } from './work-items.js';
import type { WaitCondition } from './engine.js';
import { WORKFLOW_PEER_METHODS } from './peer-methods.js';

type Handler = (body: unknown, signal: AbortSignal) => Promise<unknown>;

/** The owner's side of workflow calls other replicas route here (waits) and of work they hand over. */
export function workflowPeerHandlers(engine: () => ActorWorkflowEngine | undefined): Record<string, Handler> {
  const running = (): ActorWorkflowEngine => {
    const e = engine();
    // Not running yet (start-up) or any more (stopping): the caller looks for the owner again.
    if (!e) throw new RuntimeError('ERR_ACTOR_NOT_OWNER', 'workflows are not running on this replica right now');
    return e;
  };
  return {
    [WORKFLOW_PEER_METHODS.wait]: (body, signal) => {
      const b = body as { instanceId: string; condition: WaitCondition };
      return running().waitHere(b.instanceId, b.condition, signal);
    },
    [WORKFLOW_PEER_METHODS.offer]: (body) => Promise.resolve(running().acceptForwarded(body as WorkItem)),
  };
}
