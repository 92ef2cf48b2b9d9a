import type { ActorRuntime, ActorStateOperation, ReminderOptions, TimerOptions } from '../types.js';
import { ACTOR_PEER_METHODS } from './routed-runtime.js';

type Handler = (body: unknown) => Promise<unknown>;

interface Target {
  type: string;
  id: string;
}

/**
 * The owner's side of routed actor calls: each runs on THIS replica's local runtime, which refuses with
 * ERR_ACTOR_NOT_OWNER when the actor is not (or no longer) owned here, so the caller looks again.
 */
export function actorPeerHandlers(local: ActorRuntime): Record<string, Handler> {
  const as = <T>(body: unknown) => body as Target & T;
  return {
    [ACTOR_PEER_METHODS.invoke]: (b) => {
      const r = as<{ method: string; data?: Buffer | null }>(b);
      return local.invoke(r.type, r.id, r.method, r.data ?? undefined);
    },
    [ACTOR_PEER_METHODS.createReminder]: (b) => {
      const r = as<{ name: string; opts: ReminderOptions }>(b);
      return local.createReminder(r.type, r.id, r.name, r.opts);
    },
    [ACTOR_PEER_METHODS.deleteReminder]: (b) => {
      const r = as<{ name: string }>(b);
      return local.deleteReminder(r.type, r.id, r.name);
    },
    [ACTOR_PEER_METHODS.getReminder]: (b) => {
      const r = as<{ name: string }>(b);
      return local.getReminder(r.type, r.id, r.name);
    },
    [ACTOR_PEER_METHODS.createTimer]: (b) => {
      const r = as<{ name: string; opts: TimerOptions }>(b);
      return local.createTimer(r.type, r.id, r.name, r.opts);
    },
    [ACTOR_PEER_METHODS.deleteTimer]: (b) => {
      const r = as<{ name: string }>(b);
      return local.deleteTimer(r.type, r.id, r.name);
    },
    [ACTOR_PEER_METHODS.getState]: (b) => {
      const r = as<{ key: string }>(b);
      return local.getState(r.type, r.id, r.key);
    },
    [ACTOR_PEER_METHODS.applyState]: (b) => {
      const r = as<{ ops: ActorStateOperation[] }>(b);
      return local.applyState(r.type, r.id, r.ops);
    },
  };
}
