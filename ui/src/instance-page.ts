/**
 * One instance: status, what it waits for, input, output, custom status, failure, the timeline and every history
 * event, and the actions (raise event, pause, resume, terminate, purge, rerun from an activity or sub-workflow),
 * each confirmed first. While the instance runs the page follows it: the instance and what it waits for are re-read
 * every REFRESH_MS (a worker may take an activity without any change to the instance), its history only when the
 * instance changed.
 */
import { api, type HistoryEvent, type Instance, type Waiting } from './api.js';
import { button, confirmAction, el, notify, payload, statusBadge, time } from './dom.js';
import { showError } from './errors.js';
import { renderTimeline, stepsOf, type Step } from './timeline.js';
import { waitingPanel } from './waiting-panel.js';

const REFRESH_MS = 2000;
/** A history longer than this is shown in part (the API pages it; the UI would hold it all in the page). */
const MAX_EVENTS_SHOWN = 20_000;
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'TERMINATED', 'CANCELED']);
const P = 'svc.workflow.';

async function loadHistory(instanceId: string): Promise<{ events: HistoryEvent[]; partial: boolean }> {
  const events: HistoryEvent[] = [];
  let token: string | null = null;
  do {
    const page = await api.history(instanceId, token);
    events.push(...page.events);
    token = page.continuationToken;
  } while (token !== null && events.length < MAX_EVENTS_SHOWN);
  return { events, partial: token !== null };
}

export function renderInstancePage(root: HTMLElement, instanceId: string): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let shownUpdate = '';
  /** Kept across redraws of the page: it is refreshed on its own, every REFRESH_MS. */
  const waitingSection = el('section', { class: 'waiting', id: 'waiting' });
  let waiting: Waiting | undefined;
  let waitingReadAt = 0;
  let viewer: string | undefined;
  /** Where a trace is shown (`--trace-viewer-url`), read once per page; none when the metadata cannot be read. */
  const traceViewer = api.metadata().then(
    (m) => m.workflows?.traceViewer,
    () => undefined,
  );

  async function refresh(): Promise<void> {
    if (timer) clearTimeout(timer);
    try {
      const instance = await api.get(instanceId);
      if (stopped) return;
      const running = !TERMINAL.has(instance.runtimeStatus);
      const changed = instance.lastUpdatedAt !== shownUpdate;
      // What it waits for is read from its history: again when the instance changed, or while a worker may take
      // an activity or its next step (that changes nothing in the instance); in between, its times move on.
      if (!running) waiting = undefined;
      else if (changed || !waiting || waiting.activities.length > 0 || waiting.turn) {
        waiting = await api.waiting(instanceId);
        waitingReadAt = Date.now();
      }
      if (stopped) return;
      waitingSection.replaceChildren(...(waiting ? waitingPanel(waiting, Date.now() - waitingReadAt) : []));
      waitingSection.hidden = waiting === undefined;
      if (changed) {
        const history = await loadHistory(instanceId);
        if (stopped) return;
        shownUpdate = instance.lastUpdatedAt;
        viewer = await traceViewer;
        if (stopped) return;
        draw(instance, history.events, history.partial);
      }
      if (running) timer = setTimeout(() => void refresh(), REFRESH_MS);
    } catch (err) {
      if (!stopped) showError(err, () => void refresh());
    }
  }

  /** Runs an action, then shows what it did; the page refreshes itself. */
  const act = async (what: string, run: () => Promise<unknown>) => {
    try {
      await run();
      notify(`${what}: done`, 'ok');
      shownUpdate = '';
      await refresh();
    } catch (err) {
      showError(err, () => void act(what, run));
    }
  };

  function actions(instance: Instance): HTMLElement {
    const s = instance.runtimeStatus;
    const terminal = TERMINAL.has(s);
    const raise = button('Raise event', () => {
      // Only SDKs that send timer origins say which events they wait for (see the Waiting for panel).
      const awaited = [...new Set(waiting?.events.map((e) => e.name) ?? [])];
      void confirmAction('Raise an event', `Deliver an external event to ${instanceId}.`, [
        { name: 'name', label: awaited.length > 0 ? `Event name (it waits for ${awaited.join(', ')})` : 'Event name', suggestions: awaited, ...(awaited.length === 1 ? { value: awaited[0] } : {}) },
        { name: 'data', label: 'Data (JSON, optional)', multiline: true },
      ]).then((v) => v && act(`Event ${v.name}`, () => api.raiseEvent(instanceId, v.name!, v.data!)));
    }, { 'data-action': 'raise' });
    const command = (op: 'pause' | 'resume' | 'terminate', label: string, text: string) =>
      button(label, () => void confirmAction(`${label} ${instanceId}?`, text).then((v) => v && act(label, () => api.command(instanceId, op))), { 'data-action': op });
    const pause = command('pause', 'Pause', 'The workflow stops taking new work until it is resumed; events raised meanwhile are kept.');
    const resume = command('resume', 'Resume', 'The workflow goes on from where it was paused.');
    const terminate = command('terminate', 'Terminate', 'The workflow and its running sub-workflows end now, as TERMINATED. This cannot be undone.');
    const purge = button('Purge', () => {
      void confirmAction(`Purge ${instanceId}?`, 'Its state and history (and its sub-workflows\') are deleted for good.').then(
        (v) =>
          v &&
          api.command(instanceId, 'purge').then(
            () => {
              // Back to the list, which says what happened (the router clears notices first).
              window.addEventListener('hashchange', () => notify(`Purged ${instanceId}`, 'ok'), { once: true });
              location.hash = '#/';
            },
            (err: unknown) => showError(err, () => undefined),
          ),
      );
    }, { 'data-action': 'purge' });
    raise.disabled = terminal;
    pause.disabled = terminal || s === 'SUSPENDED';
    resume.disabled = s !== 'SUSPENDED';
    terminate.disabled = terminal;
    purge.disabled = !terminal;
    return el('div', { class: 'toolbar' }, raise, pause, resume, terminate, purge);
  }

  function rerunButton(instance: Instance, s: Step): Node | undefined {
    if (!TERMINAL.has(instance.runtimeStatus) || s.eventId === undefined || (s.kind !== 'activity' && s.kind !== 'sub-workflow')) return undefined;
    return button('Rerun from here', () => {
      void confirmAction('Rerun from this step', `A new instance replays ${instanceId} up to "${s.label}" and runs it again from there; this instance stays as it is.`, [
        { name: 'newInstanceId', label: 'New instance ID (empty: generated)' },
        { name: 'input', label: 'New input for this step (JSON, empty: the same)', multiline: true },
      ]).then(
        (v) =>
          v &&
          act('Rerun', async () => {
            const { instanceID } = await api.rerun(instanceId, s.eventId!, v.newInstanceId!.trim(), v.input!);
            location.hash = `#/instances/${encodeURIComponent(instanceID)}`;
          }),
      );
    }, { 'data-action': 'rerun', 'data-event-id': String(s.eventId) });
  }

  function draw(instance: Instance, events: HistoryEvent[], partial: boolean): void {
    const props = instance.properties;
    const failure = props[`${P}failure.error_type`] !== undefined;
    // A rerun's history starts with its source's events, older than the rerun itself.
    const from = Math.min(Date.parse(instance.createdAt), ...events.slice(0, 1).map((e) => Date.parse(e.timestamp)));
    const to = TERMINAL.has(instance.runtimeStatus) ? Date.parse(instance.lastUpdatedAt) : Date.now();
    const page = el(
      'div',
      {},
      el('p', {}, el('a', { href: '#/' }, '← All instances')),
      el('h1', {}, instanceId, ' ', statusBadge(instance.runtimeStatus)),
      el(
        'dl',
        { class: 'facts' },
        el('dt', {}, 'Workflow'),
        el('dd', {}, instance.workflowName ?? ''),
        el('dt', {}, 'Created'),
        el('dd', {}, time(instance.createdAt)),
        el('dt', {}, 'Last update'),
        el('dd', {}, time(instance.lastUpdatedAt)),
        el('dt', {}, 'Custom status'),
        el('dd', { id: 'custom-status' }, payload(props[`${P}custom_status`])),
        ...traceFacts(props[`${P}trace_id`]),
      ),
      actions(instance),
      waitingSection,
      failure
        ? el(
            'section',
            { class: 'failure', id: 'failure' },
            el('h2', {}, 'Failure'),
            el('p', {}, el('strong', {}, props[`${P}failure.error_type`] ?? ''), ': ', props[`${P}failure.error_message`] ?? ''),
            props[`${P}failure.stack_trace`] !== undefined ? el('pre', { class: 'payload' }, props[`${P}failure.stack_trace`]) : null,
          )
        : null,
      el('div', { class: 'columns' }, el('section', { id: 'input' }, el('h2', {}, 'Input'), payload(props[`${P}input`])), el('section', { id: 'output' }, el('h2', {}, 'Output'), payload(props[`${P}output`]))),
      el('h2', {}, 'Timeline'),
      renderTimeline(stepsOf(events), from, Math.max(to, from + 1), TERMINAL.has(instance.runtimeStatus), (s) => rerunButton(instance, s)),
      el('h2', {}, `History (${events.length}${partial ? '+ events, the first shown' : ' events'})`),
      eventsTable(events),
    );
    root.replaceChildren(page);
  }

  /** The trace the instance's spans are in, linked to the trace viewer when one is configured. */
  function traceFacts(traceId: string | undefined): HTMLElement[] {
    if (traceId === undefined) return [];
    const link = viewer === undefined ? null : el('a', { href: viewer.replaceAll('{traceId}', encodeURIComponent(traceId)), target: '_blank', rel: 'noopener noreferrer', id: 'trace-link' }, 'Open trace');
    return [el('dt', {}, 'Trace'), el('dd', { id: 'trace' }, el('code', {}, traceId), link ? ' ' : '', link)];
  }

  function eventsTable(events: HistoryEvent[]): HTMLElement {
    const rows = events.map((e) => {
      const details = el('td', { class: 'details' });
      const fields = Object.entries(e).filter(([k]) => !['index', 'eventId', 'type', 'timestamp'].includes(k) && !k.endsWith('Trimmed') && !k.endsWith('Length'));
      for (const [k, v] of fields) details.append(el('div', {}, el('span', { class: 'key' }, `${k}: `), typeof v === 'string' ? v : JSON.stringify(v)));
      if (Object.keys(e).some((k) => k.endsWith('Trimmed'))) {
        details.append(
          button('Show whole', () => {
            void api.event(instanceId, e.index).then(
              (whole) => details.replaceChildren(...Object.entries(whole).filter(([k]) => !['index', 'eventId', 'type', 'timestamp'].includes(k)).map(([k, v]) => el('div', {}, el('span', { class: 'key' }, `${k}: `), typeof v === 'string' ? v : JSON.stringify(v)))),
              (err: unknown) => showError(err, () => undefined),
            );
          }, { 'data-action': 'whole' }),
        );
      }
      return el('tr', { 'data-type': e.type }, el('td', {}, String(e.index)), el('td', {}, time(e.timestamp)), el('td', {}, e.type), el('td', {}, e.eventId >= 0 ? String(e.eventId) : ''), details);
    });
    return el('table', { class: 'events', id: 'events' }, el('thead', {}, el('tr', {}, ...['#', 'Time', 'Event', 'Id', 'Details'].map((h) => el('th', {}, h)))), el('tbody', {}, ...rows));
  }

  root.replaceChildren(el('p', { class: 'muted' }, `Loading ${instanceId}…`));
  void refresh();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
