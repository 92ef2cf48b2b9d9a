import { RuntimeError } from '../errors/runtime-error.js';
import type { WorkflowEngine } from './engine.js';

const MESSAGE = 'the state store is not configured to use the actor runtime: workflows need a state component with metadata actorStateStore: "true"';

function unavailable(): Promise<never> {
  return Promise.reject(new RuntimeError('ERR_ACTOR_RUNTIME_NOT_FOUND', MESSAGE));
}

/**
 * The engine svcd wires when no actor state store exists: every call fails with `ERR_ACTOR_RUNTIME_NOT_FOUND`,
 * so both APIs answer the same clear error instead of hanging.
 */
export function unavailableWorkflowEngine(): WorkflowEngine {
  return {
    start: unavailable,
    get: unavailable,
    history: unavailable,
    historyRange: unavailable,
    rerunFromEvent: unavailable,
    raiseEvent: unavailable,
    terminate: unavailable,
    suspend: unavailable,
    resume: unavailable,
    purge: unavailable,
    listInstanceIds: unavailable,
    listInstances: unavailable,
    purgeWhere: unavailable,
    waitFor: unavailable,
  };
}
