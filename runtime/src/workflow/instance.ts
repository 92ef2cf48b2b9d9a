/**
 * One workflow instance in memory: its metadata, history (append-only) and inbox (events not yet in history),
 * plus the pure rules that move events from the inbox to the history. No I/O here: the orchestration actor
 * loads an `Instance`, calls these methods inside a turn and persists what `takeChanges()` reports.
 *
 * Rules (docs/workflows.md):
 * - a turn delivers inbox events to a worker as `newEvents` after an OrchestratorStarted; results answering an
 *   id the history does not know yet wait in the inbox, duplicate results are dropped;
 * - suspend/resume at the head of the inbox and terminate anywhere in it are applied by the engine itself, so
 *   they work with no worker connected; while suspended, everything but resume/terminate waits in the inbox;
 * - events for a completed instance are dropped; continue-as-new starts a new generation whose inbox is
 *   [ExecutionStarted, carry-over events, events not delivered yet].
 */
import { randomUUID } from 'node:crypto';
import type { FailureDetails, RuntimeStatus, WorkflowInstance } from './engine.js';
import { answeredId, newEvent, type CompletionStatus, type EventOf, type HistoryEvent, type ParentInfo } from './history.js';
import { optional } from './optional.js';

export interface InstanceMeta {
  /** Incremented by every committed turn; lets an activation detect that its in-memory copy is stale. */
  version: number;
  /** Run number of this instance ID: +1 on continue-as-new and on reuse of a terminal ID. */
  generation: number;
  name: string;
  createdAt: number;
  lastUpdatedAt: number;
  scheduledStartTime?: number;
  parent?: ParentInfo;
  historyLength: number;
  inboxSeqs: number[];
  nextInboxSeq: number;
  customStatus?: string;
  /** Did any generation start running (continue-as-new keeps RUNNING between generations). */
  everStarted?: boolean;
}

export interface InboxEntry {
  seq: number;
  event: HistoryEvent;
}

/** What a worker must run next: the full history plus a batch of inbox events. */
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
  | { type: 'ScheduleTask'; name: string; input?: string }
  | { type: 'CreateSubOrchestration'; instanceId: string; name: string; input?: string }
  | { type: 'CreateTimer'; fireAt: number }
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

export interface Changes {
  meta: boolean;
  /** History entries from this index on are new (or rewritten). */
  historyFrom: number;
  /** History keys at or after this length must be deleted (history got shorter: continue-as-new, reset). */
  deleteHistoryFrom?: { from: number; to: number };
  addedInbox: InboxEntry[];
  removedInbox: number[];
}

const key = (kind: string, id: number) => `${kind}:${id}`;

export class Instance {
  readonly history: HistoryEvent[];
  inbox: InboxEntry[];
  meta: InstanceMeta;
  #started: EventOf<'ExecutionStarted'> | undefined;
  #completed: EventOf<'ExecutionCompleted'> | undefined;
  #suspended = false;
  /** `kind:id` of TaskScheduled / SubOrchestrationInstanceCreated / TimerCreated events in history. */
  readonly #opened = new Map<string, HistoryEvent>();
  /** `kind:id` of the results recorded in history. */
  readonly #answered = new Set<string>();
  #changes: Changes;

  constructor(meta: InstanceMeta, history: HistoryEvent[], inbox: InboxEntry[]) {
    this.meta = meta;
    this.history = [];
    this.inbox = inbox;
    this.#changes = { meta: false, historyFrom: history.length, addedInbox: [], removedInbox: [] };
    for (const e of history) this.#index(e);
    this.history.push(...history);
  }

  /** A new instance (or a new run of a terminal ID: `previous` is its metadata). */
  static create(
    req: { name: string; instanceId: string; input?: string; scheduledStartTime?: number; parent?: ParentInfo },
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
      inboxSeqs: [],
      nextInboxSeq: previous?.nextInboxSeq ?? 0,
    };
    if (req.scheduledStartTime !== undefined && req.scheduledStartTime > now) meta.scheduledStartTime = req.scheduledStartTime;
    if (req.parent) meta.parent = req.parent;
    const inst = new Instance(meta, [], []);
    inst.#changes.meta = true;
    if (previous) {
      inst.#changes.deleteHistoryFrom = { from: 0, to: previous.historyLength };
      inst.#changes.removedInbox.push(...previous.inboxSeqs);
    }
    inst.addToInbox(
      newEvent(
        {
          type: 'ExecutionStarted',
          name: req.name,
          instanceId: req.instanceId,
          executionId: randomUUID(),
          ...(req.input !== undefined ? { input: req.input } : {}),
          ...(req.parent ? { parent: req.parent } : {}),
          ...(meta.scheduledStartTime !== undefined ? { scheduledStartTime: meta.scheduledStartTime } : {}),
        },
        now,
      ),
    );
    return inst;
  }

  get started(): EventOf<'ExecutionStarted'> | undefined {
    return this.#started;
  }

  get completed(): EventOf<'ExecutionCompleted'> | undefined {
    return this.#completed;
  }

  get isTerminal(): boolean {
    return this.#completed !== undefined;
  }

  get pendingStart(): EventOf<'ExecutionStarted'> | undefined {
    const head = this.inbox[0]?.event;
    return head?.type === 'ExecutionStarted' ? head : undefined;
  }

  /** Status as reported to clients; suspend/resume requests count as soon as they are accepted. */
  get status(): RuntimeStatus {
    if (this.#completed) return this.#completed.status === 'CONTINUED_AS_NEW' ? 'RUNNING' : this.#completed.status;
    if (!this.#started && !this.meta.everStarted) return 'PENDING';
    let suspended = this.#suspended;
    for (const { event } of this.inbox) {
      if (event.type === 'ExecutionSuspended') suspended = true;
      else if (event.type === 'ExecutionResumed') suspended = false;
    }
    return suspended ? 'SUSPENDED' : 'RUNNING';
  }

  snapshot(instanceId: string): WorkflowInstance {
    const start = this.#started ?? this.pendingStart;
    const out: WorkflowInstance = {
      instanceId,
      name: this.meta.name,
      runtimeStatus: this.status,
      createdAt: new Date(this.meta.createdAt),
      lastUpdatedAt: new Date(this.meta.lastUpdatedAt),
    };
    if (this.meta.scheduledStartTime !== undefined) out.scheduledStartTime = new Date(this.meta.scheduledStartTime);
    if (start?.input !== undefined) out.input = start.input;
    if (this.#completed?.result !== undefined) out.output = this.#completed.result;
    if (this.#completed?.failureDetails) out.failureDetails = this.#completed.failureDetails;
    if (this.meta.customStatus !== undefined) out.customStatus = this.meta.customStatus;
    if (this.meta.parent) out.parentInstanceId = this.meta.parent.instanceId;
    return out;
  }

  /** Child instance IDs recorded in history that have not reported completion. */
  openChildren(): string[] {
    const out: string[] = [];
    for (const [k, e] of this.#opened) {
      if (e.type === 'SubOrchestrationInstanceCreated' && !this.#answered.has(k)) out.push(e.instanceId);
    }
    return out;
  }

  /** Every child instance ID recorded in history. */
  allChildren(): string[] {
    return this.history.flatMap((e) => (e.type === 'SubOrchestrationInstanceCreated' ? [e.instanceId] : []));
  }

  openActivities(): number[] {
    return [...this.#opened.values()].filter((e) => e.type === 'TaskScheduled' && !this.#answered.has(key('task', e.eventId))).map((e) => e.eventId);
  }

  openTimers(): number[] {
    return [...this.#opened.values()].filter((e) => e.type === 'TimerCreated' && !this.#answered.has(key('timer', e.eventId))).map((e) => e.eventId);
  }

  /**
   * Accepts an event from outside. Returns false when it is dropped: the instance is terminal, or the event is a
   * result already recorded (or already waiting in the inbox) — that is how duplicate activity completions are
   * ignored.
   */
  accept(event: HistoryEvent, generation?: number): boolean {
    if (this.isTerminal) return false;
    if (generation !== undefined && generation !== this.meta.generation) return false;
    const answer = answeredId(event);
    if (answer) {
      const k = key(answer.kind, answer.id);
      if (this.#answered.has(k)) return false;
      if (this.inbox.some((i) => sameAnswer(i.event, answer))) return false;
    }
    this.addToInbox(event);
    return true;
  }

  addToInbox(event: HistoryEvent): void {
    const entry = { seq: this.meta.nextInboxSeq++, event };
    this.inbox.push(entry);
    this.meta.inboxSeqs.push(entry.seq);
    this.meta.lastUpdatedAt = Math.max(this.meta.lastUpdatedAt, event.timestamp);
    this.#changes.addedInbox.push(entry);
    this.#changes.meta = true;
  }

  /**
   * Applies what the engine applies itself (terminate; suspend/resume at the head of the inbox; drops of
   * duplicates and of events for a terminal instance) and returns the batch a worker must run next, if any.
   * Must not be called while a batch of this instance is with a worker: the history may only change when that
   * batch's result is applied.
   */
  plan(now: number): PlanResult {
    const result: PlanResult = { effects: emptyEffects(), changed: false };
    if (this.isTerminal) {
      if (this.inbox.length > 0) {
        this.#consume(this.inbox.map((i) => i.seq));
        result.changed = true;
      }
      return result;
    }
    const terminate = this.inbox.find((i) => i.event.type === 'ExecutionTerminated');
    if (terminate) {
      this.#applyTerminate(terminate.event as EventOf<'ExecutionTerminated'>, now, result.effects);
      result.changed = true;
      return result;
    }
    const start = this.pendingStart;
    if (!this.#started) {
      if (!start) return result;
      if ((start.scheduledStartTime ?? 0) > now) {
        result.startAt = start.scheduledStartTime;
        return result;
      }
    }
    let selected: InboxEntry[] = [];
    let raised: InboxEntry[] = [];
    for (let rescan = true; rescan; ) {
      rescan = false;
      selected = [];
      raised = [];
      const answers = new Set<string>();
      for (const entry of this.inbox) {
        const e = entry.event;
        if (e.type === 'ExecutionSuspended' || e.type === 'ExecutionResumed') {
          if (selected.length > 0 || !this.#started) break; // applied at the head of a later turn, after this batch
          if ((e.type === 'ExecutionSuspended') !== this.#suspended) this.#appendHistory({ ...e, timestamp: now });
          this.#consume([entry.seq]);
          result.changed = true;
          rescan = true; // events held by a suspension may be deliverable now
          break;
        }
        if (this.#suspended) continue;
        const answer = answeredId(e);
        if (answer) {
          const k = key(answer.kind, answer.id);
          if (this.#answered.has(k) || answers.has(k)) {
            this.#consume([entry.seq]); // a duplicate result
            result.changed = true;
            continue;
          }
          if (!this.#opened.has(k)) continue; // its request is not in history yet
          answers.add(k);
        }
        if (e.type === 'EventRaised') {
          const name = e.name.toLowerCase();
          if (!raised.some((r) => r.event.type === 'EventRaised' && r.event.name.toLowerCase() === name)) raised.push(entry);
          continue;
        }
        selected.push(entry);
      }
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
        newEvents: [newEvent({ type: 'OrchestratorStarted' }, now), ...selected.map((s) => s.event)],
        seqs: selected.map((s) => s.seq),
      };
    }
    return result;
  }

  /** Does a worker's answer still fit this instance (same generation, history unchanged, batch still queued)? */
  fits(plan: Pick<TurnPlan, 'generation' | 'historyLength' | 'seqs'>): boolean {
    if (plan.generation !== this.meta.generation || plan.historyLength !== this.history.length || this.isTerminal) return false;
    const live = new Set(this.meta.inboxSeqs);
    return plan.seqs.every((s) => live.has(s));
  }

  /**
   * Records a worker's answer to `plan`: the batch moves to history, each action becomes its history event and
   * side effect. Call only when `fits(plan)`.
   */
  applyWorkerResult(plan: Pick<TurnPlan, 'seqs'> & { orchestratorStarted: HistoryEvent }, actions: WorkerAction[], customStatus: string | undefined, now: number): SideEffects {
    const fx = emptyEffects();
    const bySeq = new Map(this.inbox.map((i) => [i.seq, i.event]));
    this.#appendHistory(plan.orchestratorStarted);
    for (const seq of plan.seqs) {
      const e = bySeq.get(seq);
      if (e) this.#appendHistory(e);
    }
    this.#consume(plan.seqs);
    this.meta.customStatus = customStatus === undefined || customStatus === '' ? undefined : customStatus;
    this.#changes.meta = true;
    this.meta.everStarted = true;
    for (const action of actions) {
      if (this.isTerminal) break;
      this.#applyAction(action, now, fx);
    }
    this.meta.lastUpdatedAt = Math.max(this.meta.lastUpdatedAt, now);
    return fx;
  }

  #applyAction(a: WorkerAction, now: number, fx: SideEffects): void {
    switch (a.type) {
      case 'ScheduleTask':
        this.#appendHistory({ eventId: a.id, timestamp: now, type: 'TaskScheduled', name: a.name, ...optional('input', a.input) });
        fx.activities.push({ taskId: a.id, name: a.name, ...optional('input', a.input) });
        return;
      case 'CreateTimer':
        this.#appendHistory({ eventId: a.id, timestamp: now, type: 'TimerCreated', fireAt: a.fireAt });
        fx.timers.push({ timerId: a.id, fireAt: a.fireAt });
        return;
      case 'CreateSubOrchestration': {
        this.#appendHistory({ eventId: a.id, timestamp: now, type: 'SubOrchestrationInstanceCreated', instanceId: a.instanceId, name: a.name, ...optional('input', a.input) });
        const self = this.#started?.instanceId ?? '';
        fx.children.push({
          instanceId: a.instanceId,
          name: a.name,
          ...optional('input', a.input),
          parent: { instanceId: self, name: this.meta.name, taskScheduledId: a.id, generation: this.meta.generation },
        });
        return;
      }
      case 'SendEvent':
        this.#appendHistory({ eventId: a.id, timestamp: now, type: 'EventSent', instanceId: a.instanceId, name: a.name, ...optional('input', a.data) });
        fx.messages.push({
          instanceId: a.instanceId,
          event: newEvent({ type: 'EventRaised', name: a.name, ...optional('input', a.data) }, now),
          key: `sent|${this.meta.generation}|${a.id}`,
        });
        return;
      case 'TerminateOrchestration':
        fx.messages.push({
          instanceId: a.instanceId,
          event: newEvent({ type: 'ExecutionTerminated', ...optional('input', a.reason), recurse: a.recurse }, now),
          key: `terminate|${this.meta.generation}|${a.id}`,
        });
        return;
      case 'CompleteOrchestration':
        if (a.status === 'CONTINUED_AS_NEW') this.#continueAsNew(a.result, a.carryoverEvents, now, fx);
        else this.#complete({ eventId: a.id, timestamp: now, type: 'ExecutionCompleted', status: a.status, ...optional('result', a.result), ...failure(a) }, fx);
        return;
    }
  }

  #complete(event: EventOf<'ExecutionCompleted'>, fx: SideEffects): void {
    const generation = this.meta.generation;
    fx.cancelledActivities.push(...this.openActivities().map((id) => ({ generation, id })));
    fx.cancelledTimers.push(...this.openTimers().map((id) => ({ generation, id })));
    this.#appendHistory(event);
    this.#consume(this.inbox.map((i) => i.seq));
    const parent = this.meta.parent;
    if (parent) {
      const body =
        event.status === 'COMPLETED'
          ? { type: 'SubOrchestrationInstanceCompleted' as const, taskScheduledId: parent.taskScheduledId, ...optional('result', event.result) }
          : {
              type: 'SubOrchestrationInstanceFailed' as const,
              taskScheduledId: parent.taskScheduledId,
              failureDetails: event.failureDetails ?? { errorType: 'Workflow' + titleCase(event.status), errorMessage: `sub-workflow ${this.#started?.instanceId ?? ''} ended with status ${event.status}` },
            };
      fx.messages.push({ instanceId: parent.instanceId, event: newEvent(body, event.timestamp), generation: parent.generation, key: `done|${parent.generation}|${parent.taskScheduledId}` });
    }
  }

  #applyTerminate(term: EventOf<'ExecutionTerminated'>, now: number, fx: SideEffects): void {
    const start = this.#started ? undefined : this.pendingStart;
    if (start) this.#appendHistory(start);
    this.#appendHistory({ ...term, timestamp: now });
    if (term.recurse) {
      for (const child of this.openChildren()) {
        fx.messages.push({ instanceId: child, event: newEvent({ type: 'ExecutionTerminated', ...optional('input', term.input), recurse: true }, now), key: `cascade-terminate|${this.meta.generation}` });
      }
    }
    this.#complete({ eventId: -1, timestamp: now, type: 'ExecutionCompleted', status: 'TERMINATED', ...optional('result', term.input) }, fx);
    this.meta.lastUpdatedAt = Math.max(this.meta.lastUpdatedAt, now);
  }

  #continueAsNew(input: string | undefined, carryover: HistoryEvent[], now: number, fx: SideEffects): void {
    const start = this.#started;
    const generation = this.meta.generation;
    fx.cancelledActivities.push(...this.openActivities().map((id) => ({ generation, id })));
    fx.cancelledTimers.push(...this.openTimers().map((id) => ({ generation, id })));
    const remaining = this.inbox.slice();
    this.#changes.removedInbox.push(...this.meta.inboxSeqs);
    const oldLength = this.history.length;
    this.history.length = 0;
    this.#opened.clear();
    this.#answered.clear();
    this.#started = undefined;
    this.#completed = undefined;
    this.#suspended = false;
    this.#changes.historyFrom = 0;
    this.#changes.deleteHistoryFrom = { from: 0, to: Math.max(oldLength, this.#changes.deleteHistoryFrom?.to ?? 0) };
    this.#changes.addedInbox = [];
    this.inbox = [];
    this.meta.inboxSeqs = [];
    this.meta.historyLength = 0;
    this.meta.generation += 1;
    this.meta.everStarted = true;
    this.#changes.meta = true;
    this.addToInbox(
      newEvent(
        {
          type: 'ExecutionStarted',
          name: this.meta.name,
          instanceId: start?.instanceId ?? '',
          executionId: randomUUID(),
          ...optional('input', input),
          ...(this.meta.parent ? { parent: this.meta.parent } : {}),
        },
        now,
      ),
    );
    for (const e of carryover) this.addToInbox({ ...e, eventId: -1 });
    for (const r of remaining) {
      // Results of the previous generation answer nothing in the new one.
      if (!answeredId(r.event)) this.addToInbox(r.event);
    }
  }

  #appendHistory(e: HistoryEvent): void {
    this.#index(e);
    this.history.push(e);
    this.meta.historyLength = this.history.length;
    this.#changes.meta = true;
  }

  #index(e: HistoryEvent): void {
    switch (e.type) {
      case 'ExecutionStarted':
        this.#started = e;
        break;
      case 'ExecutionCompleted':
        this.#completed = e;
        break;
      case 'ExecutionSuspended':
        this.#suspended = true;
        break;
      case 'ExecutionResumed':
        this.#suspended = false;
        break;
      case 'TaskScheduled':
        this.#opened.set(key('task', e.eventId), e);
        break;
      case 'TimerCreated':
        this.#opened.set(key('timer', e.eventId), e);
        break;
      case 'SubOrchestrationInstanceCreated':
        this.#opened.set(key('child', e.eventId), e);
        break;
      default: {
        const answer = answeredId(e);
        if (answer) this.#answered.add(key(answer.kind, answer.id));
      }
    }
  }

  #consume(seqs: number[]): void {
    if (seqs.length === 0) return;
    const gone = new Set(seqs);
    this.inbox = this.inbox.filter((i) => !gone.has(i.seq));
    this.meta.inboxSeqs = this.meta.inboxSeqs.filter((s) => !gone.has(s));
    const added = new Set(this.#changes.addedInbox.map((a) => a.seq));
    for (const s of seqs) {
      if (added.has(s)) this.#changes.addedInbox = this.#changes.addedInbox.filter((a) => a.seq !== s);
      else this.#changes.removedInbox.push(s);
    }
    this.#changes.meta = true;
  }

  /** What changed since the last call (or load); resets the record. */
  takeChanges(): Changes {
    const c = this.#changes;
    this.#changes = { meta: false, historyFrom: this.history.length, addedInbox: [], removedInbox: [] };
    return c;
  }
}

function sameAnswer(e: HistoryEvent, answer: { kind: string; id: number }): boolean {
  const other = answeredId(e);
  return other !== undefined && other.kind === answer.kind && other.id === answer.id;
}


function failure(a: { status: CompletionStatus; failureDetails?: FailureDetails; result?: string }): { failureDetails?: FailureDetails } {
  if (a.failureDetails) return { failureDetails: a.failureDetails };
  if (a.status !== 'FAILED') return {};
  // Worker-level failures of some SDKs carry no details, only text in `result`.
  return { failureDetails: { errorType: 'WorkflowFailed', errorMessage: a.result && a.result !== '' ? a.result : 'the workflow failed without failure details' } };
}

function titleCase(s: string): string {
  return s.charAt(0) + s.slice(1).toLowerCase();
}

