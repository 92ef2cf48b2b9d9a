/**
 * The timeline of an instance: its history folded into steps (an activity from scheduled to its result, a timer
 * from created to fired, a sub-workflow from start to its result, events, suspensions), each drawn as a bar on
 * the instance's time span, under a time axis (long idle stretches cut, see time-scale.ts).
 */
import type { HistoryEvent } from './api.js';
import { duration, el } from './dom.js';
import { timeScale, type TimeScale } from './time-scale.js';

export interface Step {
  kind: 'activity' | 'timer' | 'sub-workflow' | 'event' | 'control';
  label: string;
  start: number;
  end?: number;
  state: 'open' | 'done' | 'failed' | 'point';
  /** The id an activity or sub-workflow start carries: what rerun takes. */
  eventId?: number;
  childInstanceId?: string;
  detail?: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));
const at = (e: HistoryEvent) => Date.parse(e.timestamp);

export function stepsOf(events: readonly HistoryEvent[]): Step[] {
  const steps: Step[] = [];
  const open = new Map<string, Step>();
  const finish = (key: string, e: HistoryEvent, failed: boolean, detail?: string) => {
    const s = open.get(key);
    if (!s) return;
    s.end = at(e);
    s.state = failed ? 'failed' : 'done';
    if (detail !== undefined) s.detail = detail;
    open.delete(key);
  };
  for (const e of events) {
    switch (e.type) {
      case 'TaskScheduled':
      case 'SubOrchestrationInstanceCreated':
      case 'TimerCreated': {
        const kind = e.type === 'TaskScheduled' ? 'activity' : e.type === 'TimerCreated' ? 'timer' : 'sub-workflow';
        const label = kind === 'timer' ? timerLabel(e) : str(e.name);
        const step: Step = { kind, label, start: at(e), state: 'open', eventId: e.eventId };
        if (kind === 'sub-workflow') step.childInstanceId = str(e.instanceId);
        steps.push(step);
        open.set(`${kind}:${e.eventId}`, step);
        break;
      }
      case 'TaskCompleted':
        finish(`activity:${str(e.taskScheduledId)}`, e, false);
        break;
      case 'TaskFailed':
        finish(`activity:${str(e.taskScheduledId)}`, e, true, failureText(e));
        break;
      case 'SubOrchestrationInstanceCompleted':
        finish(`sub-workflow:${str(e.taskScheduledId)}`, e, false);
        break;
      case 'SubOrchestrationInstanceFailed':
        finish(`sub-workflow:${str(e.taskScheduledId)}`, e, true, failureText(e));
        break;
      case 'TimerFired':
        finish(`timer:${str(e.timerId)}`, e, false);
        break;
      case 'EventRaised':
        steps.push({ kind: 'event', label: `event ${str(e.name)}`, start: at(e), state: 'point' });
        break;
      case 'EventSent':
        steps.push({ kind: 'event', label: `sent ${str(e.name)} to ${str(e.instanceId)}`, start: at(e), state: 'point' });
        break;
      case 'ExecutionSuspended':
      case 'ExecutionResumed':
      case 'ExecutionTerminated':
        steps.push({ kind: 'control', label: e.type.replace('Execution', '').toLowerCase(), start: at(e), state: 'point' });
        break;
      default:
        break;
    }
  }
  return steps;
}

/** What the timer is for when the SDK said (its origin), else when it fires. */
function timerLabel(e: HistoryEvent): string {
  const origin = e.origin as { kind: string; name?: string } | undefined;
  const until = str(e.fireAt).startsWith('9999-') ? '' : ` until ${new Date(str(e.fireAt)).toLocaleTimeString()}`;
  if (origin?.kind === 'externalEvent') return `wait for event ${origin.name ?? ''}${until}`;
  if (origin?.kind === 'activityRetry' || origin?.kind === 'childWorkflowRetry') return `retry delay${until}`;
  return `timer${e.name !== undefined ? ` ${str(e.name)}` : ''}${until}`;
}

function failureText(e: HistoryEvent): string {
  const f = e.failure as { errorType?: string; errorMessage?: string } | undefined;
  return f ? `${f.errorType ?? ''}: ${f.errorMessage ?? ''}` : '';
}

/**
 * Rows of steps with bars on the span [from, to]; `action` adds a cell (rerun) to the rows it returns one for.
 * Once the instance has `finished`, a step without a result was abandoned (a timer that lost a race), not running.
 */
export function renderTimeline(steps: readonly Step[], from: number, to: number, finished: boolean, action: (s: Step) => Node | undefined): HTMLElement {
  const endOf = (s: Step) => s.end ?? (s.state === 'open' ? to : s.start);
  const scale = timeScale(from, to, steps.map((s) => [s.start, endOf(s)] as const));
  const rows = steps.map((s) => {
    const state = s.state === 'open' && finished ? 'abandoned' : s.state;
    const bar = el('div', { class: `bar bar-${state} bar-${s.kind}` });
    const left = scale.x(s.start);
    // Points are a line; the CSS keeps a short step a few pixels wide, so it is seen next to long ones.
    place(bar, left, s.state === 'point' ? undefined : scale.x(endOf(s)) - left);
    const name = s.childInstanceId !== undefined ? el('a', { href: `#/instances/${encodeURIComponent(s.childInstanceId)}` }, `${s.label} (${s.childInstanceId})`) : s.label;
    return el(
      'tr',
      { 'data-kind': s.kind, 'data-state': state },
      el('td', {}, s.kind),
      el('td', {}, name, s.detail ? el('div', { class: 'failure-line' }, s.detail) : null),
      el('td', {}, state === 'point' ? '' : s.end !== undefined ? duration(s.end - s.start) : state === 'abandoned' ? 'no result' : 'running'),
      el('td', { class: 'track' }, el('div', { class: 'lane' }, ...gapMarks(scale), bar)),
      el('td', {}, action(s) ?? ''),
    );
  });
  return el(
    'table',
    { class: 'timeline', id: 'timeline' },
    el('thead', {}, el('tr', {}, ...['Kind', 'Step', 'Took'].map((h) => el('th', {}, h)), el('th', { class: 'track' }, rows.length > 0 ? axis(scale) : ''), el('th', {}))),
    el('tbody', {}, ...(rows.length > 0 ? rows : [el('tr', {}, el('td', { colspan: '5', class: 'muted' }, 'No activities, timers, events or sub-workflows yet.'))])),
  );
}

/** Ticks labelled with the time since the start, and a break mark with the length of each cut idle stretch. */
function axis(scale: TimeScale): HTMLElement {
  return el(
    'div',
    { class: 'axis', 'aria-label': 'time since the start' },
    ...scale.ticks.map((t) => place(el('span', { class: 'tick' }, t.label), t.x)),
    ...scale.gaps.map((g) => place(el('span', { class: 'axis-gap', title: `${duration(g.to - g.from)} with nothing running, cut short` }, duration(g.to - g.from)), g.x, g.width)),
  );
}

/** The cut idle stretches, marked across every lane. */
function gapMarks(scale: TimeScale): HTMLElement[] {
  return scale.gaps.map((g) => place(el('div', { class: 'lane-gap' }), g.x, g.width));
}

/** Set through the style object: the page's CSP allows no inline style attributes. */
function place(node: HTMLElement, x: number, width?: number): HTMLElement {
  node.style.left = `${x.toFixed(2)}%`;
  if (width !== undefined) node.style.width = `${width.toFixed(2)}%`;
  return node;
}
