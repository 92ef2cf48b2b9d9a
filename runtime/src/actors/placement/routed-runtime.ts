import type { LocalActorRuntime } from '../runtime.js';
import type { ActorFactory, ActorRuntime, ActorStateOperation, ActorTypeOptions, ActorTypeStatus, IndexEntry, IndexPage, ReminderInfo, ReminderOptions, TimerOptions } from '../types.js';
import type { Router } from './routing.js';

/** Internal-port methods of the actor runtime; the owner runs them on its local runtime (peer-handlers.ts). */
export const ACTOR_PEER_METHODS = {
  invoke: 'ActorInvoke',
  createReminder: 'ActorCreateReminder',
  deleteReminder: 'ActorDeleteReminder',
  getReminder: 'ActorGetReminder',
  createTimer: 'ActorCreateTimer',
  deleteTimer: 'ActorDeleteTimer',
  getState: 'ActorGetState',
  applyState: 'ActorApplyState',
} as const;

const orUndefined = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/**
 * The actor runtime every client uses (HTTP actor API, workflow engine): each call runs where its actor is owned.
 * Registration, start/stop and local status go to this replica's runtime.
 */
export class RoutedActorRuntime implements ActorRuntime {
  constructor(
    private readonly local: LocalActorRuntime,
    private readonly router: Router,
  ) {}

  registerType(type: string, factory: ActorFactory, opts?: ActorTypeOptions): void {
    this.local.registerType(type, factory, opts);
  }

  registeredTypes(): string[] {
    return this.local.registeredTypes();
  }

  async invoke(type: string, id: string, method: string, data?: Buffer): Promise<Buffer | undefined> {
    const out = await this.router.run(id, type, ACTOR_PEER_METHODS.invoke, { type, id, method, data }, () => this.local.invoke(type, id, method, data));
    return orUndefined(out);
  }

  createReminder(type: string, id: string, name: string, opts: ReminderOptions): Promise<void> {
    return this.#void(type, id, ACTOR_PEER_METHODS.createReminder, { type, id, name, opts }, () => this.local.createReminder(type, id, name, opts));
  }

  deleteReminder(type: string, id: string, name: string): Promise<void> {
    return this.#void(type, id, ACTOR_PEER_METHODS.deleteReminder, { type, id, name }, () => this.local.deleteReminder(type, id, name));
  }

  async getReminder(type: string, id: string, name: string): Promise<ReminderInfo | undefined> {
    return orUndefined(await this.router.run(id, type, ACTOR_PEER_METHODS.getReminder, { type, id, name }, () => this.local.getReminder(type, id, name)));
  }

  wakeLease(type: string, id: string, name: string): void {
    this.local.wakeLease(type, id, name);
  }

  createTimer(type: string, id: string, name: string, opts: TimerOptions): Promise<void> {
    return this.#void(type, id, ACTOR_PEER_METHODS.createTimer, { type, id, name, opts }, () => this.local.createTimer(type, id, name, opts));
  }

  deleteTimer(type: string, id: string, name: string): Promise<void> {
    return this.#void(type, id, ACTOR_PEER_METHODS.deleteTimer, { type, id, name }, () => this.local.deleteTimer(type, id, name));
  }

  async getState(type: string, id: string, key: string): Promise<Buffer | undefined> {
    return orUndefined(await this.router.run(id, type, ACTOR_PEER_METHODS.getState, { type, id, key }, () => this.local.getState(type, id, key)));
  }

  applyState(type: string, id: string, ops: readonly ActorStateOperation[]): Promise<void> {
    return this.#void(type, id, ACTOR_PEER_METHODS.applyState, { type, id, ops }, () => this.local.applyState(type, id, ops));
  }

  /** The index lives in the store every replica shares: read here. */
  listIndex(type: string, page: IndexPage): Promise<IndexEntry[]> {
    return this.local.listIndex(type, page);
  }

  start(): Promise<void> {
    return this.local.start();
  }

  stop(): Promise<void> {
    return this.local.stop();
  }

  activeCount(type: string): number {
    return this.local.activeCount(type);
  }

  status(): ActorTypeStatus[] {
    return this.local.status();
  }

  async #void(type: string, id: string, method: string, body: unknown, local: () => Promise<void>): Promise<void> {
    await this.router.run<unknown>(id, type, method, body, local);
  }
}
