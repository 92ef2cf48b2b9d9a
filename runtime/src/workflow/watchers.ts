import { ensureError } from '../errors/runtime-error.js';
import { abortReason } from '../util/abort-reason.js';
import type { RuntimeStatus, WorkflowInstance } from './engine.js';

interface Watcher {
  poke(status?: RuntimeStatus): void;
}

/**
 * Waiters for a condition on an instance (WaitForInstanceStart/Completion, gRPC suspend/resume). Event-driven:
 * a waiter re-reads the instance only when the instance's actor reports a change, never on a timer.
 */
export class InstanceWatchers {
  readonly #byId = new Map<string, Set<Watcher>>();

  constructor(private readonly read: (instanceId: string) => Promise<WorkflowInstance | undefined>) {}

  get size(): number {
    return this.#byId.size;
  }

  /**
   * The instance changed (reported during the changing turn; reads queue behind it and see the commit). With its
   * new status, a waiter whose condition that status cannot meet skips the re-read: a fan-out's thousands of
   * results cost a waiter for completion nothing.
   */
  notify(instanceId: string, status?: RuntimeStatus): void {
    const set = this.#byId.get(instanceId);
    // Poked once the changing turn's current step has run: a re-read started inside a turn body's synchronous
    // start would be taken for the actor calling itself (see LocalActorRuntime#startTurnBody). Reads queue behind the turn.
    if (set) for (const w of set) queueMicrotask(() => w.poke(status));
  }

  /**
   * Resolves with the first read that meets `predicate`; `meets`, when given, decides from a notified status alone.
   * An instance that does not exist resolves `undefined` at once, unless `untilCreated`: then the wait stays open
   * until the instance is created (its creation is a change like any other) or `signal` ends it. An instance that
   * existed and is gone (purged) resolves `undefined` either way.
   */
  waitUntil(
    instanceId: string,
    predicate: (i: WorkflowInstance) => boolean,
    signal: AbortSignal,
    meets?: (status: RuntimeStatus) => boolean,
    untilCreated = false,
  ): Promise<WorkflowInstance | undefined> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(abortReason(signal, 'the wait was cancelled'));
        return;
      }
      let done = false;
      let seen = false;
      let checking = false;
      let again = false;
      const finish = (settle: () => void) => {
        if (done) return;
        done = true;
        const set = this.#byId.get(instanceId);
        set?.delete(watcher);
        if (set?.size === 0) this.#byId.delete(instanceId);
        signal.removeEventListener('abort', onAbort);
        settle();
      };
      const check = async () => {
        if (checking) {
          again = true;
          return;
        }
        checking = true;
        try {
          do {
            again = false;
            const instance = await this.read(instanceId);
            if (done) return;
            if (!instance && untilCreated && !seen) continue;
            seen ||= instance !== undefined;
            if (!instance || predicate(instance)) {
              finish(() => resolve(instance));
              return;
            }
          } while (again);
        } catch (err) {
          finish(() => reject(ensureError(err)));
        } finally {
          checking = false;
        }
      };
      const watcher: Watcher = {
        poke: (status) => {
          if (status === undefined || !meets || meets(status)) void check();
        },
      };
      const onAbort = () => finish(() => reject(abortReason(signal, 'the wait was cancelled')));
      signal.addEventListener('abort', onAbort, { once: true });
      let set = this.#byId.get(instanceId);
      if (!set) this.#byId.set(instanceId, (set = new Set()));
      set.add(watcher);
      void check();
    });
  }
}
