import { expect } from 'chai';
import type { EventBody, HistoryEvent } from '../../src/workflow/history.js';
import { LISTED_PER_KIND, waitingView, type WaitingInputs } from '../../src/workflow/waiting-view.js';
import type { WorkerView } from '../../src/workflow/worker-view.js';

const T0 = Date.UTC(2026, 0, 1);
const FOR_EVER = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const iso = (ms: number) => new Date(ms).toISOString();

/** A history from [eventId, seconds after T0, body] rows. */
const history = (...rows: [number, number, EventBody][]): HistoryEvent[] => rows.map(([eventId, s, body]) => ({ eventId, timestamp: T0 + s * 1000, ...body }));

const started: [number, number, EventBody][] = [
  [-1, 0, { type: 'OrchestratorStarted' }],
  [-1, 0, { type: 'ExecutionStarted', name: 'order', instanceId: 'i', executionId: 'x' }],
];

function inputs(over: Partial<WaitingInputs> = {}): WaitingInputs {
  return { status: 'RUNNING', now: T0 + 100_000, activityWorker: () => undefined, turn: undefined, ...over };
}

describe('workflow waiting view (what an instance waits for, from its history)', () => {
  it('lists activities without a result: attempt from the retries of the same call, the worker holding it or queued', () => {
    const worker: WorkerView = { id: 7, peer: 'ipv4:127.0.0.1:5000' };
    const h = history(
      ...started,
      [0, 1, { type: 'TaskScheduled', name: 'charge', taskExecutionId: 'call-1' }],
      [1, 1, { type: 'TaskScheduled', name: 'notify' }],
      [-1, 2, { type: 'TaskFailed', taskScheduledId: 0, failureDetails: { errorType: 'E', errorMessage: 'declined' } }],
      [2, 2, { type: 'TimerCreated', fireAt: T0 + 5000, origin: { kind: 'activityRetry', taskExecutionId: 'call-1' } }],
      [-1, 5, { type: 'TimerFired', timerId: 2, fireAt: T0 + 5000 }],
      [3, 5, { type: 'TaskScheduled', name: 'charge', taskExecutionId: 'call-1' }],
      [4, 5, { type: 'TaskScheduled', name: 'done-already' }],
      [-1, 6, { type: 'TaskCompleted', taskScheduledId: 4 }],
    );
    const view = waitingView('i', h, inputs({ activityWorker: (taskId) => (taskId === 3 ? worker : undefined) }));
    expect(view.activities).to.deep.equal([
      { taskId: 1, name: 'notify', scheduledAt: iso(T0 + 1000), waitingMs: 99_000, state: 'queued' },
      { taskId: 3, name: 'charge', scheduledAt: iso(T0 + 5000), waitingMs: 95_000, attempt: 2, state: 'with-worker', worker },
    ]);
    expect(view.timers, 'the fired retry timer is not pending').to.deep.equal([]);
    expect(view.unnamedEvent).to.equal(false);
  });

  it('gives each pending timer its time left and its purpose: plain, an event timeout, a retry of an activity or a child', () => {
    const h = history(
      ...started,
      [0, 1, { type: 'TaskScheduled', name: 'charge', taskExecutionId: 'call-1' }],
      [-1, 2, { type: 'TaskFailed', taskScheduledId: 0, failureDetails: { errorType: 'E', errorMessage: 'declined' } }],
      [1, 2, { type: 'TimerCreated', fireAt: T0 + 200_000, origin: { kind: 'activityRetry', taskExecutionId: 'call-1' } }],
      [2, 2, { type: 'TimerCreated', fireAt: T0 + 300_000, origin: { kind: 'childWorkflowRetry', instanceId: 'i-child' } }],
      [3, 2, { type: 'TimerCreated', fireAt: T0 + 400_000, name: 'cool-down', origin: { kind: 'createTimer' } }],
      [4, 2, { type: 'TimerCreated', fireAt: T0 + 500_000 }],
      [5, 2, { type: 'TimerCreated', fireAt: T0 + 600_000, name: 'approval', origin: { kind: 'externalEvent', name: 'approval' } }],
    );
    const view = waitingView('i', h, inputs());
    expect(view.timers).to.deep.equal([
      { timerId: 1, fireAt: iso(T0 + 200_000), dueInMs: 100_000, purpose: { kind: 'activityRetry', taskExecutionId: 'call-1', activity: 'charge' } },
      { timerId: 2, fireAt: iso(T0 + 300_000), dueInMs: 200_000, purpose: { kind: 'childWorkflowRetry', instanceId: 'i-child' } },
      { timerId: 3, fireAt: iso(T0 + 400_000), dueInMs: 300_000, purpose: { kind: 'timer', name: 'cool-down' } },
      { timerId: 4, fireAt: iso(T0 + 500_000), dueInMs: 400_000, purpose: { kind: 'timer' } },
      { timerId: 5, fireAt: iso(T0 + 600_000), dueInMs: 500_000, purpose: { kind: 'eventTimeout', event: 'approval' } },
    ]);
    expect(view.events).to.deep.equal([{ name: 'approval', since: iso(T0 + 2000), waitingMs: 98_000, timeoutAt: iso(T0 + 600_000) }]);
  });

  it('names the events waited for until a later event of that name answers the wait (names compared case-insensitively)', () => {
    const h = history(
      ...started,
      [-1, 1, { type: 'EventRaised', name: 'approval' }], // before the wait: kept by the SDK, answers no wait svcd sees
      [0, 2, { type: 'TimerCreated', fireAt: FOR_EVER, fireAtNanos: 999_999, origin: { kind: 'externalEvent', name: 'approval' } }],
      [1, 2, { type: 'TimerCreated', fireAt: FOR_EVER, fireAtNanos: 999_999, origin: { kind: 'externalEvent', name: 'approval' } }],
      [2, 2, { type: 'TimerCreated', fireAt: T0 + 60_000, origin: { kind: 'externalEvent', name: 'payment' } }],
      [3, 2, { type: 'TimerCreated', fireAt: FOR_EVER, origin: { kind: 'externalEvent', name: 'cancel' } }],
      [-1, 3, { type: 'EventRaised', name: 'APPROVAL' }],
      [-1, 4, { type: 'EventRaised', name: 'cancel' }],
    );
    const view = waitingView('i', h, inputs());
    expect(view.events, 'one approval wait answered, the second still open; cancel answered; payment open').to.deep.equal([
      { name: 'approval', since: iso(T0 + 2000), waitingMs: 98_000 },
      { name: 'payment', since: iso(T0 + 2000), waitingMs: 98_000, timeoutAt: iso(T0 + 60_000) },
    ]);
    expect(view.timers.map((t) => t.timerId), 'indefinite waits are no timers; an answered wait\'s timeout is none either').to.deep.equal([2]);
    expect(view.unnamedEvent).to.equal(false);
  });

  it('drops a wait whose timeout fired, and children that finished', () => {
    const h = history(
      ...started,
      [0, 1, { type: 'TimerCreated', fireAt: T0 + 2000, origin: { kind: 'externalEvent', name: 'payment' } }],
      [1, 1, { type: 'SubOrchestrationInstanceCreated', instanceId: 'i-a', name: 'ship' }],
      [2, 1, { type: 'SubOrchestrationInstanceCreated', instanceId: 'i-b', name: 'bill' }],
      [-1, 2, { type: 'TimerFired', timerId: 0, fireAt: T0 + 2000 }],
      [-1, 3, { type: 'SubOrchestrationInstanceCompleted', taskScheduledId: 2 }],
      [-1, 4, { type: 'EventRaised', name: 'payment' }], // too late: answers no wait
    );
    const view = waitingView('i', h, inputs());
    expect(view.events).to.deep.equal([]);
    expect(view.timers).to.deep.equal([]);
    expect(view.children).to.deep.equal([{ taskId: 1, instanceId: 'i-a', name: 'ship', since: iso(T0 + 1000), waitingMs: 99_000 }]);
  });

  it('says a running instance with nothing pending waits for an event its SDK did not name (the Dapr JS SDK)', () => {
    const h = history(...started, [0, 1, { type: 'TaskScheduled', name: 'prepare' }], [-1, 2, { type: 'TaskCompleted', taskScheduledId: 0 }]);
    expect(waitingView('i', h, inputs()).unnamedEvent).to.equal(true);
    expect(waitingView('i', h, inputs({ status: 'SUSPENDED' })).unnamedEvent, 'suspended: waits for resume').to.equal(false);
    expect(waitingView('i', [], inputs({ status: 'PENDING' })).unnamedEvent, 'not started').to.equal(false);
  });

  it('names the next turn this svcd holds, queued or with its worker: then the instance waits for that, not for an event', () => {
    const worker: WorkerView = { id: 2, peer: 'ipv4:127.0.0.1:5001' };
    const h = history(...started);
    expect(waitingView('i', h, inputs({ turn: { worker } }))).to.deep.include({ turn: { state: 'with-worker', worker }, unnamedEvent: false });
    expect(waitingView('i', [], inputs({ status: 'PENDING', turn: {} }))).to.deep.include({ turn: { state: 'queued' }, unnamedEvent: false });
    expect(waitingView('i', h, inputs())).to.not.have.property('turn');
  });

  it('shows nothing for a finished instance: what it left open was abandoned', () => {
    const h = history(...started, [0, 1, { type: 'TimerCreated', fireAt: T0 + 60_000 }], [1, 1, { type: 'TaskScheduled', name: 'lost' }]);
    expect(waitingView('i', h, inputs({ status: 'TERMINATED' }))).to.deep.equal({
      instanceID: 'i',
      runtimeStatus: 'TERMINATED',
      activities: [],
      timers: [],
      events: [],
      children: [],
      totals: { activities: 0, timers: 0, events: 0, children: 0 },
      unnamedEvent: false,
    });
  });

  it('lists the oldest 100 of a fan-out and counts them all, asking for the workers of the listed ones only', () => {
    const asked: number[] = [];
    const fanOut = Array.from({ length: 150 }, (_, i): [number, number, EventBody] => [i, 1, { type: 'TaskScheduled', name: 'part' }]);
    const view = waitingView('i', history(...started, ...fanOut), inputs({ activityWorker: (taskId) => void asked.push(taskId) }));
    expect(view.activities.map((a) => a.taskId)).to.deep.equal([...Array(LISTED_PER_KIND).keys()]);
    expect(view.totals).to.deep.equal({ activities: 150, timers: 0, events: 0, children: 0 });
    expect(asked).to.have.length(LISTED_PER_KIND);
  });
});
