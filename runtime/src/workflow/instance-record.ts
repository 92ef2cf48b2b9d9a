/**
 * One workflow instance's record in memory: metadata, history (append-only) and inbox (events not yet in history),
 * with what the rules ask of them kept in step as events are appended and consumed, so no rule scans a history or
 * inbox of 100,000 events: which tasks, timers and sub-workflows the history opened and answered, the results
 * waiting in the inbox, its last suspend/resume and its terminates; and the record of what changed since the last
 * write (`takeChanges()`). The rules that move events between them are `Instance`'s (instance.ts).
 */
import type { RuntimeStatus, WorkflowInstance } from './engine.js';
import { answeredId, type EventOf, type HistoryEvent, type TraceContext } from './history.js';
import { inSlices } from '../util/event-loop.js';
import { addSeq, rangesOf, removeSeqs, seqsOf } from './seq-ranges.js';
import { snapshotOf } from './finished-instance.js';
import type { InstanceMeta } from './stored-meta.js';
import type { TracedEvent } from './workflow-tracing.js';
import { activityContext, runContext } from './trace-context.js';

export function inboxSeqsOf(meta: InstanceMeta): number[] {
  return meta.inboxRanges ? seqsOf(meta.inboxRanges) : (meta.inboxSeqs ?? []);
}

export interface InboxEntry {
  seq: number;
  event: HistoryEvent;
}

/** What a worker must run next: the full history plus a batch of inbox events. */
export interface Changes {
  meta: boolean;
  /** History entries from this index on are new (or rewritten). */
  historyFrom: number;
  /** History keys at or after this length must be deleted (history got shorter: continue-as-new, reset). */
  deleteHistoryFrom?: { from: number; to: number };
  addedInbox: InboxEntry[];
  removedInbox: number[];
  /** Events of traced runs that end a span, committed by this turn (absent when the run is not traced). */
  traced?: TracedEvent[];
}

/** `kind:id` of a task, timer or sub-workflow: what the history opened and what answers it. */
export const workKey = (kind: string, id: number): string => `${kind}:${id}`;

export class InstanceRecord {
  readonly history: HistoryEvent[];
  inbox: InboxEntry[];
  meta: InstanceMeta;
  #started: EventOf<'ExecutionStarted'> | undefined;
  #completed: EventOf<'ExecutionCompleted'> | undefined;
  protected suspended = false;
  /** `kind:id` of TaskScheduled / SubOrchestrationInstanceCreated / TimerCreated events in history. */
  protected readonly opened = new Map<string, HistoryEvent>();
  /** `kind:id` of the results recorded in history. */
  protected readonly answered = new Set<string>();
  /** Ids of this generation's activities without a recorded result. */
  protected readonly openTasks = new Set<number>();
  /**
   * Control events waiting in the inbox, kept in step with it so the status and `settle` never scan an inbox
   * of thousands of results: the last suspend/resume (its effect on the status) and the number of terminates.
   */
  protected inboxSuspension: boolean | undefined;
  protected inboxTerminates = 0;
  /** `kind:id` of the results waiting in the inbox: a duplicate is refused without scanning the inbox. */
  protected readonly inboxAnswers = new Set<string>();
  protected changes: Changes;

  constructor(meta: InstanceMeta, history: HistoryEvent[], inbox: InboxEntry[]) {
    if (!meta.inboxRanges) meta.inboxRanges = rangesOf(meta.inboxSeqs ?? []);
    delete meta.inboxSeqs;
    this.meta = meta;
    this.history = history;
    this.inbox = inbox;
    this.changes = { meta: false, historyFrom: history.length, addedInbox: [], removedInbox: [] };
    history.forEach((e, i) => this.#index(e, i));
    for (const entry of inbox) this.#noteInboxAnswer(entry.event, true);
    this.#recountInboxControl();
  }

  get started(): EventOf<'ExecutionStarted'> | undefined {
    return this.#started;
  }

  get completed(): EventOf<'ExecutionCompleted'> | undefined {
    return this.#completed;
  }

  /** The run's orchestration span as a parent (traced runs): what its sub-workflows and sent events continue. */
  runTrace(): TraceContext | undefined {
    const run = this.#started?.trace;
    return run && runContext(run);
  }

  /** The span of activity `taskId` as a parent (traced runs): what its work item carries to the SDK. */
  activityTrace(taskId: number): TraceContext | undefined {
    const run = this.#started?.trace;
    return run && activityContext(run, taskId);
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
    return (this.inboxSuspension ?? this.suspended) ? 'SUSPENDED' : 'RUNNING';
  }

  /** Is a terminate request waiting in the inbox (the engine applies it without a worker)? */
  get terminating(): boolean {
    return this.inboxTerminates > 0;
  }

  snapshot(instanceId: string): WorkflowInstance {
    return snapshotOf(instanceId, this.meta, this.status, this.#started ?? this.pendingStart, this.#completed);
  }

  /** Child instance IDs recorded in history that have not reported completion. */
  openChildren(): string[] {
    const out: string[] = [];
    for (const [k, e] of this.opened) {
      if (e.type === 'SubOrchestrationInstanceCreated' && !this.answered.has(k)) out.push(e.instanceId);
    }
    return out;
  }

  /** Every child instance ID recorded in history. */
  allChildren(): string[] {
    return this.history.flatMap((e) => (e.type === 'SubOrchestrationInstanceCreated' ? [e.instanceId] : []));
  }

  /** The TaskScheduled event of an activity of this generation whose result is not recorded yet. */
  openActivity(taskId: number): EventOf<'TaskScheduled'> | undefined {
    if (this.isTerminal || !this.openTasks.has(taskId)) return undefined;
    const e = this.opened.get(workKey('task', taskId));
    return e?.type === 'TaskScheduled' ? e : undefined;
  }

  openActivities(): number[] {
    return this.isTerminal ? [] : [...this.openTasks];
  }

  hasOpenActivities(): boolean {
    return !this.isTerminal && this.openTasks.size > 0;
  }

  openTimers(): number[] {
    return [...this.opened.values()].filter((e) => e.type === 'TimerCreated' && !this.answered.has(workKey('timer', e.eventId))).map((e) => e.eventId);
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
      const k = workKey(answer.kind, answer.id);
      if (this.answered.has(k) || this.inboxAnswers.has(k)) return false;
    }
    this.addToInbox(event);
    return true;
  }

  addToInbox(event: HistoryEvent): void {
    const entry = { seq: this.meta.nextInboxSeq++, event };
    this.inbox.push(entry);
    addSeq(this.meta.inboxRanges, entry.seq);
    this.#noteInboxAnswer(event, true);
    if (event.type === 'ExecutionSuspended' || event.type === 'ExecutionResumed') this.inboxSuspension = event.type === 'ExecutionSuspended';
    else if (event.type === 'ExecutionTerminated') this.inboxTerminates++;
    this.meta.lastUpdatedAt = Math.max(this.meta.lastUpdatedAt, event.timestamp);
    this.changes.addedInbox.push(entry);
    this.changes.meta = true;
  }

  /** Rare (a control event left the inbox): scans it once. */
  #recountInboxControl(): void {
    this.inboxSuspension = undefined;
    this.inboxTerminates = 0;
    for (const { event } of this.inbox) {
      if (event.type === 'ExecutionSuspended' || event.type === 'ExecutionResumed') this.inboxSuspension = event.type === 'ExecutionSuspended';
      else if (event.type === 'ExecutionTerminated') this.inboxTerminates++;
    }
  }

  #noteInboxAnswer(e: HistoryEvent, waiting: boolean): void {
    const answer = answeredId(e);
    if (!answer) return;
    if (waiting) this.inboxAnswers.add(workKey(answer.kind, answer.id));
    else this.inboxAnswers.delete(workKey(answer.kind, answer.id));
  }

  protected appendHistory(e: HistoryEvent): void {
    this.#index(e, this.history.length);
    this.history.push(e);
    this.meta.historyLength = this.history.length;
    this.changes.meta = true;
    if (this.#started?.trace) this.noteTraced(e);
  }

  /** Keeps what a span needs of an event that ends one (a run not traced never gets here: no cost per event). */
  protected noteTraced(e: HistoryEvent): void {
    const run = this.#started;
    if (!run?.trace) return;
    let opener: HistoryEvent | undefined;
    if (e.type === 'TaskCompleted' || e.type === 'TaskFailed') opener = this.opened.get(workKey('task', e.taskScheduledId));
    else if (e.type === 'TimerFired') opener = this.opened.get(workKey('timer', e.timerId));
    else if (e.type !== 'ExecutionCompleted' && e.type !== 'EventRaised') return;
    (this.changes.traced ??= []).push({ run: run as TracedEvent['run'], event: e, ...(opener ? { opener } : {}) });
  }

  /** Notes what the event at history position `position` opens, answers or decides. */
  #index(e: HistoryEvent, position: number): void {
    switch (e.type) {
      case 'ExecutionStarted':
        this.#started = e;
        this.meta.startedIndex = position;
        break;
      case 'ExecutionCompleted':
        this.#completed = e;
        if (e.status !== 'CONTINUED_AS_NEW') this.meta.completedIndex = position;
        break;
      case 'ExecutionSuspended':
        this.suspended = true;
        break;
      case 'ExecutionResumed':
        this.suspended = false;
        break;
      case 'TaskScheduled':
        this.opened.set(workKey('task', e.eventId), e);
        this.openTasks.add(e.eventId);
        break;
      case 'TimerCreated':
        this.opened.set(workKey('timer', e.eventId), e);
        break;
      case 'SubOrchestrationInstanceCreated':
        this.opened.set(workKey('child', e.eventId), e);
        break;
      default: {
        const answer = answeredId(e);
        if (answer) this.answered.add(workKey(answer.kind, answer.id));
        if (answer?.kind === 'task') this.openTasks.delete(answer.id);
      }
    }
  }

  protected consume(seqs: number[]): void {
    if (seqs.length === 0) return;
    const gone = new Set(seqs);
    const kept: InboxEntry[] = [];
    let control = false;
    for (const entry of this.inbox) control = this.#sortInboxEntry(entry, gone, kept) || control;
    this.#consumed(seqs, gone, kept, control);
  }

  /** `consume` of a worker's batch (a fan-out's is 100,000 entries), yielding between slices of the inbox. */
  protected async consumeInSlices(seqs: number[]): Promise<void> {
    if (seqs.length === 0) return;
    const gone = new Set(seqs);
    const kept: InboxEntry[] = [];
    let control = false;
    await inSlices(this.inbox, (entry) => void (control = this.#sortInboxEntry(entry, gone, kept) || control));
    this.#consumed(seqs, gone, kept, control);
  }

  /** Keeps `entry` or lets it go; true when a control event (suspend/resume/terminate) went. */
  #sortInboxEntry(entry: InboxEntry, gone: ReadonlySet<number>, kept: InboxEntry[]): boolean {
    if (!gone.has(entry.seq)) {
      kept.push(entry);
      return false;
    }
    this.#noteInboxAnswer(entry.event, false);
    return isControl(entry.event);
  }

  #consumed(seqs: readonly number[], gone: ReadonlySet<number>, kept: InboxEntry[], control: boolean): void {
    this.inbox = kept;
    if (control) this.#recountInboxControl();
    this.meta.inboxRanges = removeSeqs(this.meta.inboxRanges, gone);
    // Entries added and consumed within this turn were never written: nothing to delete for them.
    const added = new Set(this.changes.addedInbox.map((a) => a.seq));
    for (const s of seqs) if (!added.has(s)) this.changes.removedInbox.push(s);
    this.changes.addedInbox = this.changes.addedInbox.filter((a) => !gone.has(a.seq));
    this.changes.meta = true;
  }

  /**
   * Empties history and inbox for a new generation (continue-as-new): the indexes forget the old one, and the
   * change record deletes its history keys.
   */
  protected startNewGeneration(): void {
    const oldLength = this.history.length;
    this.history.length = 0;
    this.opened.clear();
    this.answered.clear();
    this.openTasks.clear();
    this.#started = undefined;
    this.#completed = undefined;
    delete this.meta.startedIndex;
    delete this.meta.completedIndex;
    this.suspended = false;
    this.changes.historyFrom = 0;
    this.changes.deleteHistoryFrom = { from: 0, to: Math.max(oldLength, this.changes.deleteHistoryFrom?.to ?? 0) };
    this.changes.addedInbox = [];
    this.inbox = [];
    this.inboxAnswers.clear();
    this.inboxSuspension = undefined;
    this.inboxTerminates = 0;
    this.meta.inboxRanges = [];
    this.meta.historyLength = 0;
  }

  /** What changed since the last call (or load); resets the record. */
  takeChanges(): Changes {
    const c = this.changes;
    this.changes = { meta: false, historyFrom: this.history.length, addedInbox: [], removedInbox: [] };
    return c;
  }
}

function isControl(e: HistoryEvent): boolean {
  return e.type === 'ExecutionSuspended' || e.type === 'ExecutionResumed' || e.type === 'ExecutionTerminated';
}
