/**
 * The "Waiting for" panel of an instance, from svcd's waiting view: its next step when a worker has it or it waits
 * for one, the activities it waits for (attempt, and the worker that has each or that it is queued), its timers
 * (what for, time left), the events it waits for (since when, until when) and its unfinished sub-workflows.
 * Events are named only by SDKs that send timer origins. `elapsed`: time since svcd answered, added to its
 * durations (so they move on between two reads, and the browser's clock need not agree with svcd's).
 */
import type { TimerPurpose, Waiting, Worker } from './api.js';
import { duration, el, time } from './dom.js';

export function waitingPanel(w: Waiting, elapsed: number): Node[] {
  const since = (ms: number) => duration(ms + elapsed);
  const items = [
    ...(w.turn
      ? [item('turn', 'Its next step (new events for the workflow code), ', w.turn.worker ? ['being run on ', workerText(w.turn.worker)] : 'queued until a worker that registered the workflow takes it')]
      : []),
    ...w.activities.map((a) =>
      item(
        'activity',
        'Activity ',
        el('strong', {}, a.name),
        ` (task ${a.taskId})`,
        a.attempt !== undefined ? `, attempt ${a.attempt}` : '',
        a.worker ? [', running on ', workerText(a.worker)] : ', queued: no worker has taken it yet',
        ` — for ${since(a.waitingMs)}`,
      ),
    ),
    more(w.totals.activities - w.activities.length, 'activities'),
    ...w.events.map((e) =>
      item('event', 'Event ', el('strong', { class: 'event-name' }, e.name), ' since ', time(e.since), ` (${since(e.waitingMs)})`, e.timeoutAt !== undefined ? [', times out at ', time(e.timeoutAt)] : ', no timeout'),
    ),
    more(w.totals.events - w.events.length, 'events'),
    ...w.timers.map((t) => item('timer', purposeText(t.purpose), ` fires in ${duration(Math.max(0, t.dueInMs - elapsed))}, at `, time(t.fireAt))),
    more(w.totals.timers - w.timers.length, 'timers'),
    ...w.children.map((c) =>
      item('child', 'Sub-workflow ', el('strong', {}, c.name), ' ', el('a', { href: `#/instances/${encodeURIComponent(c.instanceId)}` }, c.instanceId), ` — for ${since(c.waitingMs)}`),
    ),
    more(w.totals.children - w.children.length, 'sub-workflows'),
  ].filter((i): i is HTMLElement => i !== null);
  if (w.unnamedEvent) {
    items.push(item('unnamed', 'An external event: the workflow runs and has nothing else pending. Its SDK does not say which event (the Dapr JS SDK never does): see the workflow\'s code.'));
  }
  const heading = el('h2', {}, 'Waiting for');
  if (w.runtimeStatus === 'SUSPENDED') return [heading, el('p', { class: 'muted' }, 'Suspended: nothing runs until it is resumed. Then it waits for:'), list(items)];
  if (w.runtimeStatus === 'PENDING') return [heading, items.length > 0 ? list(items) : el('p', { class: 'muted' }, 'Not started yet: it waits for its scheduled start time, or for a worker of another replica of the app.')];
  return [heading, items.length > 0 ? list(items) : el('p', { class: 'muted' }, 'Nothing: its next step is being run.')];
}

type Part = Node | string | Part[];

function item(kind: string, ...parts: Part[]): HTMLElement {
  return el('li', { 'data-kind': kind }, ...(parts.flat(2) as (Node | string)[]));
}

/** svcd lists the oldest 100 of each kind: the rest is counted. */
function more(n: number, what: string): HTMLElement | null {
  return n > 0 ? item('more', `… and ${n} more ${what}`) : null;
}

function list(items: HTMLElement[]): HTMLElement {
  return el('ul', { class: 'waiting-list' }, ...items);
}

function workerText(w: Worker): string {
  return `worker #${w.id}${w.peer !== undefined ? ` (${w.peer})` : ''}${w.otherReplica ? ' of another replica' : ''}`;
}

function purposeText(p: TimerPurpose): string {
  switch (p.kind) {
    case 'timer':
      return p.name !== undefined ? `Timer ${p.name}` : 'Timer';
    case 'eventTimeout':
      return `Timeout of event ${p.event}`;
    case 'activityRetry':
      // An SDK that read no taskExecutionId from the failure names the call with '' (svcd does not stamp failures yet).
      return p.activity !== undefined ? `Retry of activity ${p.activity}` : p.taskExecutionId !== '' ? `Retry of activity call ${p.taskExecutionId}` : 'Retry of an activity';
    case 'childWorkflowRetry':
      return `Retry of sub-workflow ${p.instanceId}`;
  }
}
