/**
 * What this svcd runs, from `GET /v1.0/metadata`: the workflow workers connected to it, its components, the
 * app's subscriptions and its actor types. Read once per visit (the Refresh button reads it again).
 */
import { api, type RuntimeMetadata } from './api.js';
import { button, el } from './dom.js';
import { showError } from './errors.js';

export function renderRuntimePage(root: HTMLElement): () => void {
  let stopped = false;
  async function load(): Promise<void> {
    try {
      const meta = await api.metadata();
      if (!stopped) draw(meta);
    } catch (err) {
      if (!stopped) showError(err, () => void load());
    }
  }

  function draw(m: RuntimeMetadata): void {
    const workers = m.workflows?.workers ?? [];
    root.replaceChildren(
      el('h1', {}, `Runtime: ${m.id}`, el('span', { class: 'muted' }, `svcd ${m.runtimeVersion}`), button('Refresh', () => void load(), { 'data-action': 'refresh' })),
      el('h2', {}, `Workflow workers (${m.workflows?.connectedWorkers ?? 0} connected)`),
      table('workers', ['Worker', 'Address'], workers.map((w) => [`#${w.id}`, w.peer ?? '']), 'No workflow worker is connected: workflows wait until one is.'),
      el('h2', {}, 'Components'),
      table('components', ['Name', 'Type', 'Version', 'Kind', 'Capabilities'], m.components.map((c) => [c.name, c.type, c.version, c.origin, c.capabilities.join(', ')]), 'No components.'),
      el('h2', {}, 'Subscriptions'),
      table(
        'subscriptions',
        ['Pub/sub', 'Topic', 'Routes', 'Dead-letter topic', 'Declared'],
        (m.subscriptions ?? []).map((s) => [s.pubsubname, s.topic, s.rules.map((r) => (r.match !== '' ? `${r.match} → ${r.path}` : r.path)).join('; '), s.deadLetterTopic ?? '', s.type.toLowerCase()]),
        'The app subscribes to no topic.',
      ),
      el('h2', {}, 'Actors'),
      table('actors', ['Type', 'Active'], (m.actors ?? []).map((a) => [a.type, String(a.count)]), 'No actor types.'),
    );
  }

  root.replaceChildren(el('p', { class: 'muted' }, 'Loading…'));
  void load();
  return () => {
    stopped = true;
  };
}

function table(id: string, headings: string[], rows: string[][], empty: string): HTMLElement {
  const body = rows.length > 0 ? rows.map((r) => el('tr', {}, ...r.map((cell) => el('td', {}, cell)))) : [el('tr', {}, el('td', { colspan: String(headings.length), class: 'muted' }, empty))];
  return el('table', { id }, el('thead', {}, el('tr', {}, ...headings.map((h) => el('th', {}, h)))), el('tbody', {}, ...body));
}
