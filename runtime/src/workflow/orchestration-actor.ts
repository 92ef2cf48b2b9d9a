/**
 * The orchestration actor: one per workflow instance (actor id = instance ID). Its turns are short — they never
 * wait for a worker — and each commits, in ONE actor-state transaction, only the new history events, the inbox
 * changes, the metadata, its entry in the instance index (instance-index.ts) and its reminders:
 *
 *   metadata                 JSON InstanceMeta (versioned)
 *   history-000000 …         one history event per key, append-only (rewritten only by continue-as-new / reuse)
 *   inbox-<seq>              one pending event per key
 *
 * Reminders (durable, fire after a crash):
 *   run                      exists while a batch is pending or activities are open: the lease that offers them
 *                            again after a crash (at once after a restart; its fires advance in memory, no write
 *                            per fire). One lease for all of an instance's activities: a 100,000-activity
 *                            fan-out writes no reminder per activity, and a result rewrites no reminder.
 *   timer-<gen>-<id>         a durable timer; fires TimerFired into the inbox
 *   msg-<hash>               a message from another instance (child start, child completion, cascade terminate,
 *                            raised event), delivered as a reminder so no turn ever waits on another actor
 * A result is recorded exactly once (the history knows what is answered) even though an activity may run more
 * than once.
 *
 * Work items go to the dispatcher only once the turn that created them committed (`afterCommit`): work whose
 * turn failed is never handed out, and the lease offers what a committed turn left pending.
 */
import type { ActorContext, ActorRuntime, Actor, ReminderInfo } from '../actors/types.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { inSlices, YIELD_SLICE, yieldToEventLoop } from '../util/event-loop.js';
import type { Logger } from '../log/logger.js';
import type { RuntimeStatus } from './engine.js';
import type { WorkDispatcher } from './dispatcher.js';
import { orchestrationItem, type WorkItem } from './work-items.js';
import { neverFires, type HistoryEvent, type ParentInfo } from './history.js';
import { changedEvent, childFailed, timerFired } from './history-events.js';
import { Instance, type SideEffects, type TurnPlan } from './instance.js';
import { inboxSeqsOf, type InboxEntry } from './instance-record.js';
import { BY_UPDATE_INDEX, encodeIndexEntry, updateOrderKey } from './instance-index.js';
import { FinishedInstance } from './finished-instance.js';
import { decodeInstanceMeta } from './stored-meta.js';
import { historyKey, readHistoryRange, storedEvent } from './stored-history.js';
import { firedTimer, timerReminder, type FiredTimer } from './timer-reminder.js';
import type { WorkflowMetrics } from './metrics.js';
import { optional } from './optional.js';
import { workflowNotFound } from '../errors/catalogue.js';
import { decode, decodeActivityResults, decodeCompletion, encode, encodeHistory, messageReminderName, toSnapshot, type ActivityResultPayload, type CompletionPayload, type InstanceMessage, type StartRequest } from './orchestration-messages.js';
import { reuseDecision } from './instance-id.js';
import { emitRunSpans } from './workflow-tracing.js';

/** First fire of a lease: how soon work is offered again after a crash (the stored due time never moves). */
const LEASE_MS = 5_000;
/**
 * Later fires while the process lives. In memory only (`advanceInMemory`: no store write per fire) and nearly
 * always no-ops: the dispatcher holds work until it is answered or its worker's stream ends (then it is handed
 * out again at once), so a lease fire only matters when recording an answer failed and the item was let go.
 */
const LEASE_RECHECK_MS = 30_000;
const lease = (first: { dueTimeMs: number } | { dueAt: number }) => ({ ...first, periodMs: LEASE_RECHECK_MS, advanceInMemory: true });

/** The lease reminder of an instance with work out or waiting (docs/workflow-engine.md, Reminders). */
export const RUN = 'run';

/** Written by earlier svcd versions, one per activity; still honoured (the activity is offered) and dropped. */
const LEGACY_ACTIVITY_REMINDER = 'activity-';
const inboxKey = (seq: number) => `inbox-${seq}`;
/** Keys an activation holds as decoded events (`Instance`): the actor runtime need not cache their stored form. */
export const DECODED_KEY_PREFIXES = ['history-', 'inbox-'] as const;

export interface OrchestrationDeps {
  readonly actorType: string;
  readonly runtime: ActorRuntime;
  readonly dispatcher: WorkDispatcher;
  readonly metrics: WorkflowMetrics;
  readonly log: Logger;
  /**
   * Called during a turn that changed the instance, with its new status (none when it was purged); readers
   * queued after the turn see the committed state.
   */
  readonly changed: (instanceId: string, status?: RuntimeStatus) => void;
}

export class OrchestrationActor implements Actor {
  #inst: Instance | undefined;

  constructor(
    private readonly instanceId: string,
    private readonly deps: OrchestrationDeps,
  ) {}

  async invoke(method: string, data: Buffer | undefined, ctx: ActorContext): Promise<Buffer | undefined> {
    return this.#guard(ctx, async () => {
      switch (method) {
        case 'create':
          await this.#start(ctx, decode<StartRequest>(data) as StartRequest, false);
          return undefined;
        case 'event':
          return encode(await this.#event(ctx, decode<{ event: HistoryEvent; generation?: number }>(data)!, true));
        case 'complete':
          return encode(await this.#complete(ctx, await decodeCompletion(data ?? Buffer.alloc(0))));
        case 'activityResults':
          await this.#activityResults(ctx, await decodeActivityResults(data ?? Buffer.alloc(0)));
          return undefined;
        case 'offer': // a batch held by its instance id alone while no worker was connected (dormant-batches.ts)
          return void (await this.#onRun(ctx));
        case 'activityResult': // sent by replicas of earlier svcd versions
          await this.#activityResults(ctx, [decode<ActivityResultPayload>(data)!]);
          return undefined;
        case 'get': {
          const inst = await this.#peek(ctx);
          return inst ? encode(toSnapshot(inst.snapshot(this.instanceId))) : undefined;
        }
        case 'adopt':
          await this.#adopt(ctx, decode<{ name: string; events: HistoryEvent[] }>(data)!);
          return undefined;
        case 'history': {
          const inst = await this.#load(ctx);
          return inst ? encodeHistory(inst.history) : undefined;
        }
        case 'historyRange': {
          const { from, size } = decode<{ from: number; size: number }>(data)!;
          return readHistoryRange(ctx.state, this.instanceId, this.#inst, from, size);
        }
        case 'tree': {
          const inst = await this.#load(ctx);
          return inst ? encode({ terminal: inst.isTerminal, children: inst.allChildren() }) : undefined;
        }
        case 'purge':
          return encode(await this.#purge(ctx));
        default:
          throw new RuntimeError('ERR_MALFORMED_REQUEST', `unknown workflow actor method '${method}'`);
      }
    });
  }

  /** The activation ended: the history in memory goes with it (the runtime may keep this object a while). */
  onDeactivate(): Promise<void> {
    this.#inst = undefined;
    return Promise.resolve();
  }

  async onReminder(name: string, data: Buffer | undefined, ctx: ActorContext, info: ReminderInfo): Promise<void> {
    await this.#guard(ctx, async () => {
      if (name === RUN) return this.#onRun(ctx);
      if (name.startsWith('timer-')) return this.#onTimer(ctx, firedTimer(name, data, info.dueAt));
      if (name.startsWith(LEGACY_ACTIVITY_REMINDER)) return this.#onLegacyActivity(ctx, name, decode<{ generation: number; taskId: number }>(data)!);
      if (name.startsWith('msg-')) return this.#onMessage(ctx, decode<InstanceMessage>(data)!);
      this.deps.log.warn({ instanceId: this.instanceId, reminder: name }, 'unknown workflow reminder ignored');
    });
  }

  /**
   * A failed turn commits nothing: forget the in-memory copy so the next turn reloads the committed state.
   * After a turn that leaves the instance finished (or unknown) the activation ends as soon as it is idle: a
   * finished instance keeps no history in memory (a later read loads it again). So does any while no worker is
   * connected: none can move until one comes (100,000 started before it would each hold their history meanwhile).
   */
  async #guard<T>(ctx: ActorContext, body: () => Promise<T>): Promise<T> {
    try {
      const out = await body();
      if (!this.#inst || this.#inst.isTerminal || !this.deps.dispatcher.hasWorkers) ctx.deactivateWhenIdle();
      return out;
    } catch (err) {
      this.#inst = undefined;
      throw err;
    }
  }

  /**
   * The instance for a turn that reads it or may drop what it brings: a finished instance not in memory comes
   * from its metadata and two events (`FinishedInstance`), not its whole history.
   */
  async #peek(ctx: ActorContext): Promise<Instance | FinishedInstance | undefined> {
    if (this.#inst) return this.#load(ctx);
    const meta = decodeInstanceMeta(await ctx.state.get('metadata'), this.instanceId);
    if (meta?.startedIndex === undefined || meta.completedIndex === undefined) return this.#load(ctx);
    const [started, completed] = (await ctx.state.getMany([historyKey(meta.startedIndex), historyKey(meta.completedIndex)])).map((b) => decode<HistoryEvent>(b));
    if (started?.type !== 'ExecutionStarted' || completed?.type !== 'ExecutionCompleted') return this.#load(ctx);
    return new FinishedInstance(meta, started, completed);
  }

  async #load(ctx: ActorContext): Promise<Instance | undefined> {
    const meta = decodeInstanceMeta(await ctx.state.get('metadata'), this.instanceId);
    if (!meta) {
      this.#inst = undefined;
      return undefined;
    }
    if (this.#inst && this.#inst.meta.version === meta.version) return this.#inst;
    const historyKeys = Array.from({ length: meta.historyLength }, (_, i) => historyKey(i));
    const inboxSeqs = inboxSeqsOf(meta);
    const keys = [...historyKeys, ...inboxSeqs.map(inboxKey)];
    // In slices (a fan-out's history is 200,000 keys): the read and the parsing yield to the event loop. Reads
    // in several store calls are consistent: this actor is the only writer of its keys and its turns are serial.
    const events: HistoryEvent[] = [];
    for (let from = 0; from < keys.length; from += YIELD_SLICE) {
      if (from > 0) await yieldToEventLoop();
      const values = await ctx.state.getMany(keys.slice(from, from + YIELD_SLICE));
      values.forEach((v, i) => events.push(storedEvent(this.instanceId, keys[from + i]!, v)));
    }
    const inbox: InboxEntry[] = inboxSeqs.map((seq, i) => ({ seq, event: events[historyKeys.length + i] as HistoryEvent }));
    this.#inst = new Instance(meta, events.slice(0, historyKeys.length), inbox);
    return this.#inst;
  }

  async #start(ctx: ActorContext, req: StartRequest, fromParent: boolean): Promise<void> {
    const existing = await this.#peek(ctx);
    const now = ctx.clock.now();
    if (existing && !existing.isTerminal && fromParent) {
      if (sameParent(existing.meta.parent, req.parent)) return; // duplicate delivery
      if (req.parent) {
        const parent = req.parent;
        await this.#send(parent.instanceId, `exists|${this.instanceId}|${parent.instanceId}|${parent.generation}|${parent.taskScheduledId}`, {
          kind: 'event',
          generation: parent.generation,
          event: childFailed({ timestamp: now }, parent.taskScheduledId, { errorType: 'WorkflowAlreadyExists', errorMessage: `an active workflow with ID '${this.instanceId}' already exists` }),
        });
        return;
      }
    }
    if (existing && fromParent && sameParent(existing.meta.parent, req.parent)) return; // already ran for this parent
    if (existing && !fromParent) {
      const decision = reuseDecision(existing.status, req.reuse);
      if (decision === 'ignore') return;
      if (decision === 'refuse') {
        // The phrase durabletask-go's own backends use, so clients that match on it keep working.
        throw new RuntimeError('ERR_WORKFLOW_ALREADY_EXISTS', `an orchestration instance already exists with ID '${this.instanceId}' (${existing.status})`);
      }
      if (!existing.isTerminal) this.#abandonRun(existing);
    }
    const inst = Instance.create(req, now, existing?.meta);
    this.#inst = inst;
    await this.#settle(ctx, inst, []);
  }

  /** A rerun: this instance starts from the given history (a live instance of this ID is refused). */
  async #adopt(ctx: ActorContext, p: { name: string; events: HistoryEvent[] }): Promise<void> {
    const existing = await this.#peek(ctx);
    if (existing && !existing.isTerminal) throw new RuntimeError('ERR_WORKFLOW_ALREADY_EXISTS', `an active workflow with ID '${this.instanceId}' already exists`);
    const inst = Instance.adopt(p.events, p.name, ctx.clock.now(), existing?.meta);
    this.#inst = inst;
    await this.#settle(ctx, inst, [inst.reopenedWork()]);
  }

  /** A running instance replaced by a new run (reuse policy `terminate`): its queued work is of no use now. */
  #abandonRun(inst: Instance): void {
    this.deps.dispatcher.withdrawQueuedOrchestration(this.instanceId);
    for (const taskId of inst.openActivities()) this.deps.dispatcher.dropActivity(this.instanceId, taskId);
  }

  async #event(ctx: ActorContext, msg: { event: HistoryEvent; generation?: number }, required: boolean): Promise<boolean> {
    const inst = await this.#peek(ctx);
    if (!inst) {
      if (required) throw workflowNotFound(this.instanceId);
      return false;
    }
    if (inst instanceof FinishedInstance) return false;
    const accepted = inst.accept(changedEvent(msg.event, { timestamp: Math.max(msg.event.timestamp, ctx.clock.now()) }), msg.generation);
    if (accepted) await this.#settle(ctx, inst, []);
    return accepted;
  }

  /** Activity results (a batch: `ResultBatcher`), recorded in one turn. */
  async #activityResults(ctx: ActorContext, results: readonly ActivityResultPayload[]): Promise<void> {
    const inst = await this.#peek(ctx);
    if (!inst) return;
    const now = ctx.clock.now();
    let accepted = 0;
    await inSlices(results, (p) => {
      const taskId = p.event.type === 'TaskCompleted' || p.event.type === 'TaskFailed' ? p.event.taskScheduledId : -1;
      // An answer delivered through another replica: that replica held the item for this one.
      this.deps.dispatcher.releaseAnsweredActivity(this.instanceId, taskId);
      const ok = !(inst instanceof FinishedInstance) && inst.accept(changedEvent(p.event, { timestamp: now }), p.generation);
      if (ok) accepted++;
      this.deps.metrics.activitiesExecuted.inc({ result: ok ? (p.event.type === 'TaskCompleted' ? 'completed' : 'failed') : 'duplicate' });
    });
    if (accepted > 0 && !(inst instanceof FinishedInstance)) await this.#settle(ctx, inst, []);
  }

  /** Records a worker's answer; `invalid` says why a malformed answer failed the instance instead. */
  async #complete(ctx: ActorContext, p: CompletionPayload): Promise<{ invalid?: string }> {
    // This turn records the answer: from here on the next batch of this instance may be handed out.
    this.deps.dispatcher.releaseAnsweredOrchestration(this.instanceId);
    const inst = await this.#load(ctx);
    if (!inst) return {};
    if (!inst.fits(p.plan)) {
      this.deps.log.debug({ instanceId: this.instanceId }, 'stale orchestration result dropped');
      await this.#settle(ctx, inst, []);
      return {};
    }
    const { effects, invalid } = await inst.applyWorkerResult(p.plan, p.actions, p.customStatus, ctx.clock.now());
    const done = inst.completed;
    if (done && done.status !== 'CONTINUED_AS_NEW') this.deps.metrics.completed.inc({ status: done.status });
    await this.#settle(ctx, inst, [effects]);
    return invalid !== undefined ? { invalid } : {};
  }

  async #onRun(ctx: ActorContext): Promise<void> {
    const inst = await this.#load(ctx);
    if (!inst) return ctx.deleteReminder(RUN);
    await this.#settle(ctx, inst, []);
    // After a crash or a lost hand-out: every open activity not with a worker goes out again (in slices: a
    // fan-out has 100,000 of them, nearly all with a worker already).
    const offers: WorkItem[] = [];
    await inSlices(inst.openActivities(), (taskId) => {
      const scheduled = inst.openActivity(taskId);
      if (scheduled && !this.deps.dispatcher.hasActivity(this.instanceId, taskId)) offers.push(this.#activityItem(inst, taskId, scheduled.name, scheduled.input));
    });
    this.#offerAfterCommit(ctx, offers);
  }

  async #onTimer(ctx: ActorContext, t: FiredTimer): Promise<void> {
    const inst = await this.#peek(ctx);
    if (!inst || inst instanceof FinishedInstance || !inst.accept(timerFired({ timestamp: ctx.clock.now() }, t.timerId, t.fireAt), t.generation)) return;
    await this.#settle(ctx, inst, []).then(() => ctx.afterCommit(() => this.deps.metrics.timersFired.inc()));
  }

  /** An activity reminder of an earlier svcd version: the activity is offered if still open, the `run` lease takes over. */
  async #onLegacyActivity(ctx: ActorContext, name: string, a: { generation: number; taskId: number }): Promise<void> {
    ctx.deleteReminder(name);
    const inst = await this.#load(ctx);
    const scheduled = inst && a.generation === inst.meta.generation ? inst.openActivity(a.taskId) : undefined;
    if (!inst || !scheduled) return;
    if (!(await ctx.getReminder(RUN))) ctx.createReminder(RUN, lease({ dueTimeMs: LEASE_MS }));
    this.#offerAfterCommit(ctx, [this.#activityItem(inst, a.taskId, scheduled.name, scheduled.input)]);
  }

  #activityItem(inst: Instance, taskId: number, name: string, input: string | undefined): WorkItem {
    return { kind: 'activity', instanceId: this.instanceId, generation: inst.meta.generation, taskId, name, ...optional('input', input), ...optional('parentTrace', inst.activityTrace(taskId)) };
  }

  #offerAfterCommit(ctx: ActorContext, items: WorkItem[]): void {
    if (items.length === 0) return;
    ctx.afterCommit(() => void inSlices(items, (item) => this.deps.dispatcher.offer(item)));
  }

  async #onMessage(ctx: ActorContext, msg: InstanceMessage): Promise<void> {
    if (msg.kind === 'start') await this.#start(ctx, msg.request, true);
    else await this.#event(ctx, msg, false);
  }

  async #purge(ctx: ActorContext): Promise<{ children: string[] }> {
    const inst = await this.#load(ctx);
    if (!inst) throw workflowNotFound(this.instanceId);
    if (!inst.isTerminal) {
      throw new RuntimeError(
        'ERR_PURGE_WORKFLOW_NOT_COMPLETED',
        `error purging workflow ${this.instanceId}: the workflow is ${inst.status}; only a completed, failed or terminated workflow can be purged (terminate it first)`,
      );
    }
    for (let i = 0; i < inst.history.length; i++) ctx.state.delete(historyKey(i));
    for (const entry of inst.inbox) ctx.state.delete(inboxKey(entry.seq));
    ctx.state.delete('metadata');
    ctx.setIndexEntry(this.instanceId, null);
    if (inst.meta.indexedAt !== undefined) ctx.setIndexEntry(updateOrderKey(inst.meta.indexedAt, this.instanceId), null, BY_UPDATE_INDEX);
    ctx.deleteReminder(RUN);
    const children = inst.allChildren();
    this.#inst = undefined;
    this.deps.changed(this.instanceId);
    return { children };
  }

  /**
   * After any change: let the engine apply what it applies itself, hand the next batch to a worker unless one is
   * out already, carry out side effects, keep the `run` lease in step, persist.
   */
  async #settle(ctx: ActorContext, inst: Instance, effects: SideEffects[]): Promise<void> {
    const now = ctx.clock.now();
    const dispatcher = this.deps.dispatcher;
    let batch: TurnPlan | undefined;
    let startAt: number | undefined;
    if (inst.terminating) dispatcher.withdrawQueuedOrchestration(this.instanceId);
    if (!dispatcher.hasOrchestration(this.instanceId)) {
      const plan = await inst.plan(now);
      effects.push(plan.effects);
      batch = plan.batch;
      startAt = plan.startAt;
    }
    const offers = effects.flatMap((fx) => this.#carryOutLocal(ctx, inst, fx));
    for (const fx of effects) await this.#sendMessages(fx, inst);

    if (batch || dispatcher.hasOrchestration(this.instanceId) || inst.hasOpenActivities()) {
      if (!(await ctx.getReminder(RUN))) ctx.createReminder(RUN, lease({ dueTimeMs: LEASE_MS }));
    } else if (startAt !== undefined) {
      ctx.createReminder(RUN, lease({ dueAt: startAt }));
    } else if (await ctx.getReminder(RUN)) {
      ctx.deleteReminder(RUN);
    }
    const persisted = await this.#persist(ctx, inst);
    this.#offerAfterCommit(ctx, batch ? [orchestrationItem(this.instanceId, inst.meta.name, batch), ...offers] : offers);
    // A turn that changed nothing (e.g. a lease fire while the batch waits for a worker) wakes no waiter: each
    // waiter's re-read would be a turn of its own.
    if (persisted) this.deps.changed(this.instanceId, inst.status);
  }

  /** Reminder side effects (part of this turn's transaction); returns the activity items to offer once committed. */
  #carryOutLocal(ctx: ActorContext, inst: Instance, fx: SideEffects): WorkItem[] {
    const generation = inst.meta.generation;
    for (const t of fx.timers) if (!neverFires(t.fireAt)) ctx.createReminder(timerReminder(generation, t.timerId), { dueAt: t.fireAt });
    for (const c of fx.cancelledActivities) this.deps.dispatcher.dropActivity(this.instanceId, c.id);
    for (const c of fx.cancelledTimers) ctx.deleteReminder(timerReminder(c.generation, c.id));
    const cancelled = new Set(fx.cancelledActivities.filter((c) => c.generation === generation).map((c) => c.id));
    return fx.activities.filter((a) => !cancelled.has(a.taskId)).map((a) => this.#activityItem(inst, a.taskId, a.name, a.input));
  }

  /** Messages to other instances: reminders on their actors, named after the message so a re-send replaces it. */
  async #sendMessages(fx: SideEffects, inst: Instance): Promise<void> {
    const parentTrace = inst.runTrace(); // a sub-workflow's run continues under this run's span
    for (const c of fx.children) {
      const p = c.parent;
      await this.#send(c.instanceId, `start|${p.instanceId}|${p.generation}|${p.taskScheduledId}`, {
        kind: 'start',
        request: { name: c.name, instanceId: c.instanceId, parent: p, ...(c.input !== undefined ? { input: c.input } : {}), ...optional('parentTrace', parentTrace) },
      });
    }
    for (const m of fx.messages) {
      await this.#send(m.instanceId, `${m.key}|${this.instanceId}|${m.instanceId}`, { kind: 'event', event: m.event, ...(m.generation !== undefined ? { generation: m.generation } : {}) });
    }
  }

  /** `target` is a valid instance ID: the instance checked the IDs its worker chose (`Instance.applyWorkerResult`). */
  #send(target: string, identity: string, msg: InstanceMessage): Promise<void> {
    return this.deps.runtime.createReminder(this.deps.actorType, target, messageReminderName(identity), { dueTimeMs: 0, data: encode(msg) });
  }

  /** Writes the turn's changes; false when there were none. */
  async #persist(ctx: ActorContext, inst: Instance): Promise<boolean> {
    const c = inst.takeChanges();
    if (!c.meta) return false;
    const traced = c.traced;
    if (traced) ctx.afterCommit(() => emitRunSpans(this.instanceId, traced));
    await inSlices(inst.history.slice(c.historyFrom), (e, i) => ctx.state.set(historyKey(c.historyFrom + i), encode(e)));
    if (c.deleteHistoryFrom) {
      for (let i = Math.max(c.deleteHistoryFrom.from, inst.history.length); i < c.deleteHistoryFrom.to; i++) ctx.state.delete(historyKey(i));
    }
    await inSlices(c.removedInbox, (seq) => ctx.state.delete(inboxKey(seq)));
    for (const e of c.addedInbox) ctx.state.set(inboxKey(e.seq), encode(e.event));
    const m = inst.meta;
    m.version += 1;
    const entry = encodeIndexEntry({ name: m.name, runtimeStatus: inst.status, createdAt: m.createdAt, lastUpdatedAt: m.lastUpdatedAt, ...optional('parentInstanceId', m.parent?.instanceId) });
    ctx.setIndexEntry(this.instanceId, entry);
    // The update-ordered entry moves with lastUpdatedAt; the metadata remembers where it was written.
    if (m.indexedAt !== undefined && m.indexedAt !== m.lastUpdatedAt) ctx.setIndexEntry(updateOrderKey(m.indexedAt, this.instanceId), null, BY_UPDATE_INDEX);
    ctx.setIndexEntry(updateOrderKey(m.lastUpdatedAt, this.instanceId), entry, BY_UPDATE_INDEX);
    m.indexedAt = m.lastUpdatedAt;
    ctx.state.set('metadata', encode(m));
    return true;
  }
}

function sameParent(a: ParentInfo | undefined, b: ParentInfo | undefined): boolean {
  return a !== undefined && b !== undefined && a.instanceId === b.instanceId && a.generation === b.generation && a.taskScheduledId === b.taskScheduledId;
}
