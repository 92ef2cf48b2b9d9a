/**
 * What a running instance waits for (`GET /v1.0/workflows/svc/<id>/waiting`), read from its history: activities
 * without a result, timers not fired, events it waits for, sub-workflows not finished, and its next turn when one
 * waits for a worker. Transport-free and pure: the caller gives the history, the status, the time, and where this
 * svcd's dispatcher has each activity and the next turn.
 *
 * Only newer SDKs (Dapr's Go, Python, Java, .NET) name the events they wait for, through the origin of the timer
 * each wait creates; the Dapr JS SDK creates none for a wait without timeout. A running instance with nothing
 * pending is therefore said to wait for an event the SDK did not name.
 */
import { isTerminalStatus, type RuntimeStatus } from './engine.js';
import { neverFires, type EventOf, type HistoryEvent } from './history.js';
import type { WorkerView } from './worker-view.js';

export interface PendingActivityView {
  taskId: number;
  name: string;
  scheduledAt: string;
  waitingMs: number;
  /** 1 for the first call, n for its (n-1)th retry; only when the SDK names the call (`taskExecutionId`). */
  attempt?: number;
  /** With a worker (which one, when this svcd hands it out), or queued until a worker takes it. */
  state: 'with-worker' | 'queued';
  worker?: WorkerView;
}

export type TimerPurpose =
  | { kind: 'timer'; name?: string }
  | { kind: 'eventTimeout'; event: string }
  | { kind: 'activityRetry'; taskExecutionId: string; activity?: string }
  | { kind: 'childWorkflowRetry'; instanceId: string };

export interface PendingTimerView {
  timerId: number;
  fireAt: string;
  dueInMs: number;
  purpose: TimerPurpose;
}

export interface AwaitedEventView {
  name: string;
  since: string;
  waitingMs: number;
  /** When the wait times out; absent for a wait without timeout. */
  timeoutAt?: string;
}

export interface PendingChildView {
  taskId: number;
  instanceId: string;
  name: string;
  since: string;
  waitingMs: number;
}

export interface WaitingView {
  instanceID: string;
  runtimeStatus: RuntimeStatus;
  /**
   * Its next turn (new events for the workflow code), when this svcd holds it: queued until a worker that
   * registered the workflow takes it (a PENDING instance's first step, too), or being run by `worker`.
   */
  turn?: { state: 'queued' | 'with-worker'; worker?: WorkerView };
  activities: PendingActivityView[];
  timers: PendingTimerView[];
  events: AwaitedEventView[];
  children: PendingChildView[];
  /** How many of each there are: a list shows at most LISTED_PER_KIND. */
  totals: { activities: number; timers: number; events: number; children: number };
  /** Running with nothing of the above, no turn either: it waits for an event its SDK did not name (the Dapr JS SDK names none). */
  unnamedEvent: boolean;
}

export interface WaitingInputs {
  readonly status: RuntimeStatus;
  readonly now: number;
  /** The worker this svcd's dispatcher handed the activity to; undefined while queued (or unknown here). */
  readonly activityWorker: (taskId: number) => WorkerView | undefined;
  /** The instance's next turn when this svcd holds its batch (see `WaitingView.turn`). */
  readonly turn: { worker?: WorkerView } | undefined;
}

type Opened = EventOf<'TaskScheduled'> | EventOf<'TimerCreated'> | EventOf<'SubOrchestrationInstanceCreated'>;
type Kind = keyof WaitingView['totals'];

/** A fan-out may wait for 100,000 activities: each list shows the oldest this many, `totals` counts them all. */
export const LISTED_PER_KIND = 100;

const iso = (ms: number) => new Date(ms).toISOString();

export function waitingView(instanceId: string, history: readonly HistoryEvent[], inputs: WaitingInputs): WaitingView {
  const view: WaitingView = {
    instanceID: instanceId,
    runtimeStatus: inputs.status,
    activities: [],
    timers: [],
    events: [],
    children: [],
    totals: { activities: 0, timers: 0, events: 0, children: 0 },
    unnamedEvent: false,
  };
  /** Counts one more of `kind`; builds its entry (a worker look-up for an activity) only while the list has room. */
  const add = <K extends Kind>(kind: K, entry: () => WaitingView[K][number]) => {
    if (view.totals[kind]++ < LISTED_PER_KIND) (view[kind] as WaitingView[K][number][]).push(entry());
  };
  // A finished instance waits for nothing: what it left open was abandoned.
  if (isTerminalStatus(inputs.status)) return view;
  if (inputs.turn) view.turn = inputs.turn.worker ? { state: 'with-worker', worker: inputs.turn.worker } : { state: 'queued' };
  const { open, answeredWaits, attempts, activityNames } = readHistory(history);
  const since = (ms: number) => Math.max(0, inputs.now - ms);
  for (const e of open.values()) {
    if (e.type === 'TaskScheduled') {
      add('activities', () => {
        const worker = inputs.activityWorker(e.eventId);
        const attempt = attempts.get(e.eventId);
        return {
          taskId: e.eventId,
          name: e.name,
          scheduledAt: iso(e.timestamp),
          waitingMs: since(e.timestamp),
          ...(attempt !== undefined ? { attempt } : {}),
          state: worker ? 'with-worker' : 'queued',
          ...(worker ? { worker } : {}),
        };
      });
    } else if (e.type === 'SubOrchestrationInstanceCreated') {
      add('children', () => ({ taskId: e.eventId, instanceId: e.instanceId, name: e.name, since: iso(e.timestamp), waitingMs: since(e.timestamp) }));
    } else if (e.origin?.kind === 'externalEvent') {
      // The wait's timer matters only while the event has not come: after it, the timer fires into nothing.
      if (answeredWaits.has(e.eventId)) continue;
      const { name } = e.origin;
      const timeout = neverFires(e.fireAt) ? undefined : e.fireAt;
      add('events', () => ({ name, since: iso(e.timestamp), waitingMs: since(e.timestamp), ...(timeout !== undefined ? { timeoutAt: iso(timeout) } : {}) }));
      if (timeout !== undefined) add('timers', () => timerView(e, { kind: 'eventTimeout', event: name }, inputs.now));
    } else {
      add('timers', () => timerView(e, purposeOf(e, activityNames), inputs.now));
    }
  }
  const waitsForSomething = Object.values(view.totals).some((n) => n > 0);
  view.unnamedEvent = inputs.status === 'RUNNING' && !waitsForSomething && !view.turn;
  return view;
}

function timerView(e: EventOf<'TimerCreated'>, purpose: TimerPurpose, now: number): PendingTimerView {
  return { timerId: e.eventId, fireAt: iso(e.fireAt), dueInMs: Math.max(0, e.fireAt - now), purpose };
}

function purposeOf(e: EventOf<'TimerCreated'>, activityNames: ReadonlyMap<string, string>): TimerPurpose {
  switch (e.origin?.kind) {
    case 'activityRetry': {
      const activity = activityNames.get(e.origin.taskExecutionId);
      return { kind: 'activityRetry', taskExecutionId: e.origin.taskExecutionId, ...(activity !== undefined ? { activity } : {}) };
    }
    case 'childWorkflowRetry':
      return { kind: 'childWorkflowRetry', instanceId: e.origin.instanceId };
    default:
      // A plain timer, or one from an SDK that gives no origin (it may be a wait's timeout: the SDK does not say).
      return { kind: 'timer', ...(e.name !== undefined ? { name: e.name } : {}) };
  }
}

/**
 * One pass over the history: what is still open (in history order), which event waits an EventRaised answered
 * (each raised event ends the oldest wait for its name, names compared case-insensitively as the SDKs do), each
 * activity's attempt number (its place among the activities with its `taskExecutionId`) and those activities' names.
 */
function readHistory(history: readonly HistoryEvent[]) {
  const open = new Map<string, Opened>();
  const waits = new Map<string, number[]>(); // lower-cased event name → timer ids of its open waits, oldest first
  const answeredWaits = new Set<number>();
  const attempts = new Map<number, number>();
  const calls = new Map<string, number>();
  const activityNames = new Map<string, string>();
  for (const e of history) {
    switch (e.type) {
      case 'TaskScheduled':
        open.set(`task:${e.eventId}`, e);
        if (e.taskExecutionId !== undefined) {
          const n = (calls.get(e.taskExecutionId) ?? 0) + 1;
          calls.set(e.taskExecutionId, n);
          attempts.set(e.eventId, n);
          activityNames.set(e.taskExecutionId, e.name);
        }
        break;
      case 'SubOrchestrationInstanceCreated':
        open.set(`child:${e.eventId}`, e);
        break;
      case 'TimerCreated':
        open.set(`timer:${e.eventId}`, e);
        if (e.origin?.kind === 'externalEvent') {
          const key = e.origin.name.toLowerCase();
          waits.set(key, [...(waits.get(key) ?? []), e.eventId]);
        }
        break;
      case 'TaskCompleted':
      case 'TaskFailed':
        open.delete(`task:${e.taskScheduledId}`);
        break;
      case 'SubOrchestrationInstanceCompleted':
      case 'SubOrchestrationInstanceFailed':
        open.delete(`child:${e.taskScheduledId}`);
        break;
      case 'TimerFired':
        open.delete(`timer:${e.timerId}`);
        for (const ids of waits.values()) if (ids.includes(e.timerId)) ids.splice(ids.indexOf(e.timerId), 1);
        break;
      case 'EventRaised': {
        const answered = waits.get(e.name.toLowerCase())?.shift();
        if (answered !== undefined) answeredWaits.add(answered);
        break;
      }
      default:
        break;
    }
  }
  return { open, answeredWaits, attempts, activityNames };
}
