/**
 * The actor operations public APIs may perform (HTTP and the gRPC runtime API), on actor types the app hosts
 * only, each failing with its operation's code from the catalogue (ERR_ACTOR_INVOKE_METHOD, …) unless the error
 * carries one already, so both transports answer alike. svcd's own actor types (`svc.internal.…`, e.g. the workflow engine's instances) hold workflow
 * inputs, histories and leases: reached through `/v1.0/actors/…`, a caller with the API token could read them,
 * forge a completion or delete a timer. Every public entry point goes through this one check, and an internal
 * type answers exactly as a type this app does not host.
 */
import type { ErrorCode } from '../errors/codes.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { withCode } from '../errors/with-code.js';
import type { Resiliency } from '../resiliency/resiliency.js';
import type { ActorRuntime, ActorStateOperation, ReminderInfo, ReminderOptions, TimerOptions } from './types.js';

/** Actor types of svcd itself start with this; an app cannot register one (`isInternalActorType`). */
export const INTERNAL_ACTOR_TYPE_PREFIX = 'svc.internal.';

export function isInternalActorType(type: string): boolean {
  return type.startsWith(INTERNAL_ACTOR_TYPE_PREFIX);
}

export type PublicActorApi = Pick<ActorRuntime, 'invoke' | 'createReminder' | 'deleteReminder' | 'getReminder' | 'createTimer' | 'deleteTimer' | 'getState' | 'applyState'>;

export class PublicActors implements PublicActorApi {
  constructor(
    private readonly runtime: ActorRuntime,
    /** The Resiliency policies in force: an actor type's timeout and circuit breaker apply to calls of its methods. */
    private readonly resiliency?: () => Resiliency,
  ) {}

  invoke(type: string, id: string, method: string, data?: Buffer): Promise<Buffer | undefined> {
    const policy = this.resiliency?.().forActor(type, id);
    // Never retried here: a method may have run before it failed (placement retries calls that never reached a host).
    const call = (rt: ActorRuntime) => (policy ? policy.run(() => rt.invoke(type, id, method, data), { retryable: () => false }) : rt.invoke(type, id, method, data));
    return this.#call(type, 'ERR_ACTOR_INVOKE_METHOD', `error invoking actor ${type}/${id}`, call);
  }

  createReminder(type: string, id: string, name: string, opts: ReminderOptions): Promise<void> {
    return this.#call(type, 'ERR_ACTOR_REMINDER_CREATE', 'error creating actor reminder', (rt) => rt.createReminder(type, id, name, opts));
  }

  deleteReminder(type: string, id: string, name: string): Promise<void> {
    return this.#call(type, 'ERR_ACTOR_REMINDER_DELETE', 'error deleting actor reminder', (rt) => rt.deleteReminder(type, id, name));
  }

  getReminder(type: string, id: string, name: string): Promise<ReminderInfo | undefined> {
    return this.#call(type, 'ERR_ACTOR_REMINDER_GET', 'error getting actor reminder', (rt) => rt.getReminder(type, id, name));
  }

  createTimer(type: string, id: string, name: string, opts: TimerOptions): Promise<void> {
    return this.#call(type, 'ERR_ACTOR_TIMER_CREATE', 'error creating actor timer', (rt) => rt.createTimer(type, id, name, opts));
  }

  deleteTimer(type: string, id: string, name: string): Promise<void> {
    return this.#call(type, 'ERR_ACTOR_TIMER_DELETE', 'error deleting actor timer', (rt) => rt.deleteTimer(type, id, name));
  }

  getState(type: string, id: string, key: string): Promise<Buffer | undefined> {
    return this.#call(type, 'ERR_ACTOR_STATE_GET', `error getting actor state ${key}`, (rt) => rt.getState(type, id, key));
  }

  applyState(type: string, id: string, ops: readonly ActorStateOperation[]): Promise<void> {
    return this.#call(type, 'ERR_ACTOR_STATE_TRANSACTION_SAVE', 'error saving actor state transaction', (rt) => rt.applyState(type, id, ops));
  }

  /** Runs `op` when `type` may be reached publicly; a failure without a code gets `code`. */
  #call<T>(type: string, code: ErrorCode, message: string, op: (runtime: ActorRuntime) => Promise<T>): Promise<T> {
    if (isInternalActorType(type)) return Promise.reject(new RuntimeError('ERR_ACTOR_INSTANCE_MISSING', `actor type ${type} is not registered in this app`));
    return withCode(code, message, () => op(this.runtime));
  }
}
