/**
 * One workflow instance in memory (its record: instance-record.ts) and the pure rules that move events from the
 * inbox to the history. No I/O here: the orchestration actor loads an `Instance`, calls these methods inside a
 * turn and persists what `takeChanges()` reports.
 *
 * Rules (docs/workflows.md):
 * - a turn delivers inbox events to a worker as `newEvents` after an OrchestratorStarted; results answering an
 *   id the history does not know yet wait in the inbox, duplicate results are dropped;
 * - suspend/resume at the head of the inbox and terminate anywhere in it are applied by the engine itself, so
 *   they work with no worker connected; while suspended, everything but resume/terminate waits in the inbox;
 * - events for a completed instance are dropped; continue-as-new starts a new generation whose inbox is
 *   [ExecutionStarted, carry-over events, events not delivered yet].
 */
import type { FailureDetails } from './history.js';
import { answeredId, type CompletionStatus, type EventOf, type HistoryEvent, type ParentInfo, type TimerDetails, type TraceContext } from './history.js';
import { inSlices, YIELD_SLICE, yieldToEventLoop } from '../util/event-loop.js';
import { changedEvent, childCompleted, childCreated, childFailed, eventRaised, eventSent, executionCompleted, executionStarted, executionTerminated, orchestratorStarted, taskFailed, taskScheduled, timerCreated } from './history-events.js';
import { existingInstanceIdProblem } from './instance-id.js';
import { optional } from './optional.js';
import { hasSeq } from './seq-ranges.js';
import type { InstanceMeta } from './stored-meta.js';


/** The inbox sequence numbers of stored metadata (either form). */
import { InstanceRecord, inboxSeqsOf, workKey, type InboxEntry } from './instance-record.js';
export interface TurnPlan {
  generation: number;
  /** History length the batch was built on; a completion for another length is stale. */
  historyLength: number;
  pastEvents: HistoryEvent[];
  /** OrchestratorStarted first, then the delivered inbox events. */
  newEvents: HistoryEvent[];
  /** Inbox entries the batch consumes once the worker's result is applied. */
  seqs: number[];
}

export type WorkerAction = { id: number } & (
  | { type: 'ScheduleTask'; name: string; input?: string; taskExecutionId?: string }
  | { type: 'CreateSubOrchestration'; instanceId: string; name: string; input?: string }
  | ({ type: 'CreateTimer'; fireAt: number } & TimerDetails)
  | { type: 'SendEvent'; instanceId: string; name: string; data?: string }
  | { type: 'CompleteOrchestration'; status: CompletionStatus; result?: string; failureDetails?: FailureDetails; carryoverEvents: HistoryEvent[] }
  | { type: 'TerminateOrchestration'; instanceId: string; reason?: string; recurse: boolean }
);

export interface PlanResult {
  /** The batch to hand to a worker. */
  batch?: TurnPlan;
  /** Effects of engine-applied events (a recursive terminate messages the children). */
  effects: SideEffects;
  /** Did the engine change the instance (history or inbox) itself? */
  changed: boolean;
  /** Nothing runs before this time (delayed start). */
  startAt?: number;
}

/** Effects outside this instance's history that a turn asks the actor to carry out. */
export interface SideEffects {
  activities: { taskId: number; name: string; input?: string }[];
  timers: { timerId: number; fireAt: number }[];
  /** Children to start. */
  children: { instanceId: string; name: string; input?: string; parent: ParentInfo }[];
  /** Events for other instances (raised events, terminations, completion of this child to its parent). */
  /** `key` names the message: a re-run of the same turn produces the same key, so it replaces, not repeats. */
  messages: { instanceId: string; event: HistoryEvent; generation?: number; key: string }[];
  /** Activities/timers (with the generation that created them) that no longer matter: completion, continue-as-new. */
  cancelledActivities: { generation: number; id: number }[];
  cancelledTimers: { generation: number; id: number }[];
}

export function emptyEffects(): SideEffects {
  return { activities: [], timers: [], children: [], messages: [], cancelledActivities: [], cancelledTimers: [] };
}

export class Instance extends InstanceRecord {
  /** A new instance (or a new run of a terminal ID: `previous` is its metadata). */
  static create(
    req: { name: string; instanceId: string; input?: string; scheduledStartTime?: number; parent?: ParentInfo; parentTrace?: TraceContext },
    now: number,
    previous?: InstanceMeta,
  ): Instance {
    const meta: InstanceMeta = {
      version: previous?.version ?? 0,
      generation: (previous?.generation ?? 0) + 1,
      name: req.name,
      createdAt: now,
      lastUpdatedAt: now,
      historyLength: 0,
      inboxRanges: [],
      nextInboxSeq: previous?.nextInboxSeq ?? 0,
      ...(previous?.indexedAt !== undefined ? { indexedAt: previous.indexedAt } : {}),
    };
    if (req.scheduledStartTime !== undefined && req.scheduledStartTime > now) meta.scheduledStartTime = req.scheduledStartTime;
    if (req.parent) meta.parent = req.parent;
    const inst = new Instance(meta, [], []);
    inst.changes.meta = true;
    if (previous) {
      inst.changes.deleteHistoryFrom = { from: 0, to: previous.historyLength };
      inst.changes.removedInbox = inboxSeqsOf(previous);
    }
    inst.addToInbox(executionStarted({ timestamp: now }, { name: req.name, instanceId: req.instanceId, input: req.input, parent: req.parent, scheduledStartTime: meta.scheduledStartTime, parentTrace: req.parentTrace }));
    return inst;
  }

  /**
   * A new run of `instanceId` that starts from a given history (rerun from an event): RUNNING, nothing in the
   * inbox; `reopenedWork` says what must run again.
   */
  static adopt(history: HistoryEvent[], name: string, now: number, previous?: InstanceMeta): Instance {
    const meta: InstanceMeta = {
      version: previous?.version ?? 0,
      generation: (previous?.generation ?? 0) + 1,
      name,
      createdAt: now,
      lastUpdatedAt: now,
      historyLength: history.length,
      inboxRanges: [],
      nextInboxSeq: previous?.nextInboxSeq ?? 0,
      ...(previous?.indexedAt !== undefined ? { indexedAt: previous.indexedAt } : {}),
      everStarted: true,
    };
    const inst = new Instance(meta, history, []);
    inst.changes = { meta: true, historyFrom: 0, addedInbox: [], removedInbox: previous ? inboxSeqsOf(previous) : [] };
    if (previous && previous.historyLength > history.length) inst.changes.deleteHistoryFrom = { from: history.length, to: previous.historyLength };
    return inst;
  }

  /** The work an adopted history left open (activities, timers, sub-workflows without a result), to start again. */
  reopenedWork(): SideEffects {
    const fx = emptyEffects();
    const self = this.started?.instanceId ?? '';
    for (const [k, e] of this.opened) {
      if (this.answered.has(k)) continue;
      if (e.type === 'TaskScheduled') fx.activities.push({ taskId: e.eventId, name: e.name, ...optional('input', e.input) });
      else if (e.type === 'TimerCreated') fx.timers.push({ timerId: e.eventId, fireAt: e.fireAt });
      else if (e.type === 'SubOrchestrationInstanceCreated') {
        fx.children.push({
          instanceId: e.instanceId,
          name: e.name,
          ...optional('input', e.input),
          parent: { instanceId: self, name: this.meta.name, taskScheduledId: e.eventId, generation: this.meta.generation },
        });
      }
    }
    return fx;
  }

  /**
   * Applies what the engine applies itself (terminate; suspend/resume at the head of the inbox; drops of
   * duplicates and of events for a terminal instance) and returns the batch a worker must run next, if any.
   * Must not be called while a batch of this instance is with a worker: the history may only change when that
   * batch's result is applied.
   */
  /** In slices of the inbox, yielding between them: results that came in while a worker replayed can be 100,000. */
  async plan(now: number): Promise<PlanResult> {
    const result: PlanResult = { effects: emptyEffects(), changed: false };
    if (this.isTerminal) {
      if (this.inbox.length > 0) {
        this.consume(this.inbox.map((i) => i.seq));
        result.changed = true;
      }
      return result;
    }
    const terminate = this.terminating && this.inbox.find((i) => i.event.type === 'ExecutionTerminated');
    if (terminate) {
      this.#applyTerminate(terminate.event as EventOf<'ExecutionTerminated'>, now, result.effects);
      result.changed = true;
      return result;
    }
    const start = this.pendingStart;
    if (!this.started) {
      if (!start) return result;
      if ((start.scheduledStartTime ?? 0) > now) {
        result.startAt = start.scheduledStartTime;
        return result;
      }
    }
    let selected: InboxEntry[] = [];
    let raised: InboxEntry[] = [];
    let duplicates: number[] = [];
    for (let rescan = true; rescan; ) {
      rescan = false;
      selected = [];
      raised = [];
      duplicates = [];
      const answers = new Set<string>();
      const raisedNames = new Set<string>();
      for (let i = 0; i < this.inbox.length; i++) {
        if (i > 0 && i % YIELD_SLICE === 0) await yieldToEventLoop();
        const entry = this.inbox[i] as InboxEntry;
        const e = entry.event;
        if (e.type === 'ExecutionSuspended' || e.type === 'ExecutionResumed') {
          if (selected.length > 0 || !this.started) break; // applied at the head of a later turn, after this batch
          if ((e.type === 'ExecutionSuspended') !== this.suspended) this.appendHistory(changedEvent(e, { timestamp: now }));
          this.consume([entry.seq]);
          result.changed = true;
          rescan = true; // events held by a suspension may be deliverable now
          break;
        }
        if (this.suspended) continue;
        const answer = answeredId(e);
        if (answer) {
          const k = workKey(answer.kind, answer.id);
          if (this.answered.has(k) || answers.has(k)) {
            duplicates.push(entry.seq); // a duplicate result
            continue;
          }
          if (!this.opened.has(k)) continue; // its request is not in history yet
          answers.add(k);
          if (answer.kind === 'task') this.#withTaskExecutionId(entry, answer.id);
        }
        if (e.type === 'EventRaised') {
          const name = e.name.toLowerCase();
          if (!raisedNames.has(name)) {
            raisedNames.add(name);
            raised.push(entry);
          }
          continue;
        }
        selected.push(entry);
      }
    }
    if (duplicates.length > 0) {
      this.consume(duplicates);
      result.changed = true;
    }
    // Raised events: at most one per name per batch, after the other events. The JS SDKs drop an event whose
    // name the workflow already awaited (in this execution) when it arrives with no waiter pending: a same-name
    // burst in one batch lost all but the first (the reference engine's continue-as-new event loss). One per
    // name, after the results the workflow may react to first, the next event comes once it waits again.
    // (Events cannot go before ExecutionStarted either: a first `yield` on an already received event stalls.)
    selected = [...selected, ...raised];
    if (selected.length > 0) {
      result.batch = {
        generation: this.meta.generation,
        historyLength: this.history.length,
        pastEvents: this.history.slice(),
        // Not a literal with a spread: V8 gives one room for 17 more elements, held as long as the batch waits.
        newEvents: [orchestratorStarted({ timestamp: now }) as HistoryEvent].concat(selected.map((s) => s.event)),
        seqs: selected.map((s) => s.seq),
      };
    }
    return result;
  }

  /** A result carries its call's taskExecutionId (from its TaskScheduled): newer SDKs read it when they retry. */
  #withTaskExecutionId(entry: InboxEntry, taskId: number): void {
    const e = entry.event;
    if ((e.type !== 'TaskCompleted' && e.type !== 'TaskFailed') || e.taskExecutionId !== undefined) return;
    const scheduled = this.opened.get(workKey('task', taskId));
    if (scheduled?.type === 'TaskScheduled' && scheduled.taskExecutionId !== undefined) entry.event = changedEvent(e, { taskExecutionId: scheduled.taskExecutionId });
  }

  /** Does a worker's answer still fit this instance (same generation, history unchanged, batch still queued)? */
  fits(plan: Pick<TurnPlan, 'generation' | 'historyLength' | 'seqs'>): boolean {
    if (plan.generation !== this.meta.generation || plan.historyLength !== this.history.length || this.isTerminal) return false;
    return plan.seqs.every((s) => hasSeq(this.meta.inboxRanges, s));
  }

  /**
   * Records a worker's answer to `plan`: the batch moves to history, each action becomes its history event and
   * side effect. Call only when `fits(plan)`. An answer that is not well-formed (two actions with one id) fails
   * the instance: replaying it would give the same answer again; `invalid` says why. Async only to yield to the
   * event loop between slices of a huge batch or answer (a fan-out of 100,000); no I/O.
   */
  async applyWorkerResult(
    plan: Pick<TurnPlan, 'seqs'> & { orchestratorStarted: HistoryEvent },
    actions: WorkerAction[],
    customStatus: string | undefined,
    now: number,
  ): Promise<{ effects: SideEffects; invalid?: string }> {
    const fx = emptyEffects();
    const bySeq = new Map<number, HistoryEvent>();
    await inSlices(this.inbox, (i) => void bySeq.set(i.seq, i.event));
    this.appendHistory(plan.orchestratorStarted);
    await inSlices(plan.seqs, (seq) => {
      const e = bySeq.get(seq);
      if (e) this.appendHistory(e);
    });
    await this.consumeInSlices(plan.seqs);
    this.meta.customStatus = customStatus === undefined || customStatus === '' ? undefined : customStatus;
    this.changes.meta = true;
    this.meta.everStarted = true;
    this.meta.lastUpdatedAt = Math.max(this.meta.lastUpdatedAt, now);
    const duplicate = duplicateActionId(actions);
    if (duplicate !== undefined) {
      const invalid = `the worker's answer has more than one action with id ${duplicate}`;
      this.#failRun('InvalidWorkflowActions', invalid, now, fx);
      return { effects: fx, invalid };
    }
    await inSlices(actions, (action) => {
      if (!this.isTerminal) this.#applyAction(action, now, fx);
    });
    return { effects: fx };
  }

  #applyAction(a: WorkerAction, now: number, fx: SideEffects): void {
    switch (a.type) {
      case 'ScheduleTask':
        this.appendHistory(taskScheduled({ timestamp: now, eventId: a.id }, a.name, a.input, a.taskExecutionId));
        if (a.name === '') this.#failTask('task', a.id, 'InvalidActivityName', 'an activity must have a name', now);
        else fx.activities.push({ taskId: a.id, name: a.name, ...optional('input', a.input) });
        return;
      case 'CreateTimer': {
        this.appendHistory(timerCreated({ timestamp: now, eventId: a.id }, a.fireAt, a));
        fx.timers.push({ timerId: a.id, fireAt: a.fireAt });
        return;
      }
      case 'CreateSubOrchestration': {
        const self = this.started?.instanceId ?? '';
        // No ID given (the Go SDK's default): named as the established engine names it, `<parent>:<id as 4+ hex>`.
        const instanceId = a.instanceId !== '' ? a.instanceId : `${self}:${a.id.toString(16).padStart(4, '0')}`;
        this.appendHistory(childCreated({ timestamp: now, eventId: a.id }, instanceId, a.name, a.input));
        const problem = a.name === '' ? 'a sub-workflow must have a name' : existingInstanceIdProblem(instanceId)?.message;
        if (problem !== undefined) {
          this.#failTask('child', a.id, a.name === '' ? 'InvalidWorkflowName' : 'InvalidInstanceId', problem, now);
          return;
        }
        fx.children.push({
          instanceId,
          name: a.name,
          ...optional('input', a.input),
          parent: { instanceId: self, name: this.meta.name, taskScheduledId: a.id, generation: this.meta.generation },
        });
        return;
      }
      case 'SendEvent':
        if (this.#invalidTarget(a.instanceId, 'an event', now, fx)) return;
        this.appendHistory(eventSent({ timestamp: now, eventId: a.id }, a.instanceId, a.name, a.data));
        fx.messages.push({
          instanceId: a.instanceId,
          event: eventRaised({ timestamp: now }, a.name, a.data, this.runTrace()),
          key: `sent|${this.meta.generation}|${a.id}`,
        });
        return;
      case 'TerminateOrchestration':
        if (this.#invalidTarget(a.instanceId, 'a terminate request', now, fx)) return;
        fx.messages.push({
          instanceId: a.instanceId,
          event: executionTerminated({ timestamp: now }, a.reason, a.recurse),
          key: `terminate|${this.meta.generation}|${a.id}`,
        });
        return;
      case 'CompleteOrchestration':
        if (a.status === 'CONTINUED_AS_NEW') this.#continueAsNew(a.result, a.carryoverEvents, now, fx);
        else this.#complete(executionCompleted({ timestamp: now, eventId: a.id }, a.status, { result: a.result, failureDetails: failureOf(a) }), fx);
        return;
    }
  }

  /** A task the worker asked for that cannot exist: its failure goes to the inbox, so the workflow sees it. */
  #failTask(kind: 'task' | 'child', taskScheduledId: number, errorType: string, errorMessage: string, now: number): void {
    const failureDetails = { errorType, errorMessage, isNonRetriable: true };
    this.addToInbox(kind === 'task' ? taskFailed({ timestamp: now }, taskScheduledId, failureDetails) : childFailed({ timestamp: now }, taskScheduledId, failureDetails));
  }

  /** An event or terminate request for an ID that cannot exist has no task to fail: the run fails, visibly. */
  #invalidTarget(instanceId: string, what: string, now: number, fx: SideEffects): boolean {
    const problem = existingInstanceIdProblem(instanceId);
    if (!problem) return false;
    this.#failRun('InvalidInstanceId', `${what} was sent to an invalid instance ID: ${problem.message}`, now, fx);
    return true;
  }

  #failRun(errorType: string, errorMessage: string, now: number, fx: SideEffects): void {
    this.#complete(executionCompleted({ timestamp: now }, 'FAILED', { failureDetails: { errorType, errorMessage } }), fx);
  }

  #complete(event: EventOf<'ExecutionCompleted'>, fx: SideEffects): void {
    this.#cancelOpenWork(fx);
    this.appendHistory(event);
    this.consume(this.inbox.map((i) => i.seq));
    const parent = this.meta.parent;
    if (parent) {
      const at = { timestamp: event.timestamp };
      const done =
        event.status === 'COMPLETED'
          ? childCompleted(at, parent.taskScheduledId, event.result)
          : childFailed(
              at,
              parent.taskScheduledId,
              event.failureDetails ?? { errorType: 'Workflow' + titleCase(event.status), errorMessage: `sub-workflow ${this.started?.instanceId ?? ''} ended with status ${event.status}` },
            );
      fx.messages.push({ instanceId: parent.instanceId, event: done, generation: parent.generation, key: `done|${parent.generation}|${parent.taskScheduledId}` });
    }
  }

  #applyTerminate(term: EventOf<'ExecutionTerminated'>, now: number, fx: SideEffects): void {
    const start = this.started ? undefined : this.pendingStart;
    if (start) this.appendHistory(start);
    this.appendHistory(changedEvent(term, { timestamp: now }));
    if (term.recurse) {
      for (const child of this.openChildren()) {
        fx.messages.push({ instanceId: child, event: executionTerminated({ timestamp: now }, term.input, true), key: `cascade-terminate|${this.meta.generation}` });
      }
    }
    this.#complete(executionCompleted({ timestamp: now }, 'TERMINATED', { result: term.input }), fx);
    this.meta.lastUpdatedAt = Math.max(this.meta.lastUpdatedAt, now);
  }

  #continueAsNew(input: string | undefined, carryover: HistoryEvent[], now: number, fx: SideEffects): void {
    const start = this.started;
    this.#cancelOpenWork(fx);
    this.noteTraced(executionCompleted({ timestamp: now }, 'CONTINUED_AS_NEW')); // the run's span ends here
    const remaining = this.inbox.slice();
    for (const entry of this.inbox) this.changes.removedInbox.push(entry.seq);
    this.startNewGeneration();
    this.meta.generation += 1;
    this.meta.everStarted = true;
    this.changes.meta = true;
    this.addToInbox(executionStarted({ timestamp: now }, { name: this.meta.name, instanceId: start?.instanceId ?? '', input, parent: this.meta.parent, parentTrace: start?.trace?.parent }));
    for (const e of carryover) this.addToInbox(changedEvent(e, { eventId: -1 }));
    for (const r of remaining) {
      // Results of the previous generation answer nothing in the new one.
      if (!answeredId(r.event)) this.addToInbox(r.event);
    }
  }

  /** Activities and timers still open are of no use once this generation ends (completion, continue-as-new). */
  #cancelOpenWork(fx: SideEffects): void {
    const generation = this.meta.generation;
    for (const id of this.openActivities()) fx.cancelledActivities.push({ generation, id });
    for (const id of this.openTimers()) fx.cancelledTimers.push({ generation, id });
  }

}



function duplicateActionId(actions: readonly WorkerAction[]): number | undefined {
  const seen = new Set<number>();
  for (const a of actions) {
    if (seen.has(a.id)) return a.id;
    seen.add(a.id);
  }
  return undefined;
}

function failureOf(a: { status: CompletionStatus; failureDetails?: FailureDetails; result?: string }): FailureDetails | undefined {
  if (a.failureDetails) return a.failureDetails;
  if (a.status !== 'FAILED') return undefined;
  // Worker-level failures of some SDKs carry no details, only text in `result`.
  return { errorType: 'WorkflowFailed', errorMessage: a.result && a.result !== '' ? a.result : 'the workflow failed without failure details' };
}

function titleCase(s: string): string {
  return s.charAt(0) + s.slice(1).toLowerCase();
}

