/**
 * The instance list: filters (kept in the address, so a filtered view can be shared; a status chip applies at
 * once, the text fields with Apply), pages read with svcd's continuation tokens (the list is newest update first;
 * svcd pages through its index, so 100,000 instances cost no more than 100), a live refresh of the page on
 * screen, and the start of a new instance.
 */
import { api, type InstanceSummary } from './api.js';
import { button, el, statusBadge, time } from './dom.js';
import { showError } from './errors.js';
import { startWorkflow } from './start-dialog.js';

const STATUSES = ['RUNNING', 'PENDING', 'SUSPENDED', 'COMPLETED', 'FAILED', 'TERMINATED', 'CONTINUED_AS_NEW', 'CANCELED'];
const FILTERS = ['status', 'name', 'instanceIDPrefix', 'createdFrom', 'createdTo', 'pageSize'] as const;
const REFRESH_MS = 2000;

/** A datetime-local value (local time, no zone) as RFC 3339 UTC; '' stays ''. */
const toIso = (local: string) => (local === '' ? '' : new Date(local).toISOString());
/** The other way, for showing a filter from the address in its field. */
function toLocal(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

export function renderListPage(root: HTMLElement, params: URLSearchParams): () => void {
  const tokens: (string | null)[] = [null]; // token of each page read so far; the last is the page on screen
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const form = el('form', { class: 'filters', id: 'filters' });
  const chosen = params.getAll('status').flatMap((v) => v.split(','));
  const status = el('div', { class: 'chips', id: 'status-filter', role: 'group', 'aria-label': 'Status' });
  for (const s of STATUSES) {
    const box = el('input', { type: 'checkbox', name: 'status', value: s });
    box.checked = chosen.includes(s);
    box.addEventListener('change', () => form.requestSubmit());
    status.append(el('label', { class: 'chip', 'data-status': s }, box, s));
  }
  const text = (name: string, label: string, type = 'text', value = params.get(name) ?? '') => {
    const input = el('input', { name, type, placeholder: label });
    input.value = value;
    return el('label', {}, label, input);
  };
  const pageSize = el('select', { name: 'pageSize' });
  for (const n of ['25', '50', '100', '500']) {
    const o = el('option', { value: n }, `${n} per page`);
    o.selected = (params.get('pageSize') ?? '50') === n;
    pageSize.append(o);
  }
  const live = el('input', { type: 'checkbox', id: 'live' });
  live.checked = true;
  form.append(
    el('div', { class: 'field' }, el('span', {}, 'Status'), status),
    text('name', 'Workflow name'),
    text('instanceIDPrefix', 'Instance ID starts with'),
    text('createdFrom', 'Created from', 'datetime-local', toLocal(params.get('createdFrom') ?? '')),
    text('createdTo', 'Created before', 'datetime-local', toLocal(params.get('createdTo') ?? '')),
    el('label', {}, 'Page', pageSize),
    el('div', { class: 'form-actions' }, el('button', { type: 'submit', class: 'primary' }, 'Apply'), button('Clear', () => (location.hash = '#/')), el('label', { class: 'inline' }, live, 'Live')),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const next = new URLSearchParams();
    const data = new FormData(form);
    const field = (name: string) => {
      const v = data.get(name);
      return typeof v === 'string' ? v : '';
    };
    const statuses = data.getAll('status').filter((v): v is string => typeof v === 'string');
    if (statuses.length > 0) next.set('status', statuses.join(','));
    for (const name of ['name', 'instanceIDPrefix', 'pageSize'] as const) {
      const v = field(name).trim();
      if (v !== '') next.set(name, v);
    }
    for (const name of ['createdFrom', 'createdTo'] as const) {
      const v = toIso(field(name));
      if (v !== '') next.set(name, v);
    }
    location.hash = `#/?${next.toString()}`;
  });

  const body = el('tbody');
  const table = el('table', { class: 'instances', id: 'instances' }, el('thead', {}, el('tr', {}, ...['Instance ID', 'Workflow', 'Status', 'Created', 'Last update', 'Parent'].map((h) => el('th', {}, h)))), body);
  const prev = button('← Newer', () => void load(tokens.length - 2, true), { id: 'prev' });
  const next = button('Older →', () => void load(tokens.length, true), { id: 'next' });
  const info = el('span', { class: 'muted', id: 'page-info' });
  const start = button('Start workflow…', () => void startWorkflow(), { 'data-action': 'start', class: 'primary' });
  root.replaceChildren(el('h1', {}, 'Workflow instances', start), form, table, el('div', { class: 'pager' }, prev, info, next));

  const query = (token: string | null) => {
    const q = new URLSearchParams();
    for (const name of FILTERS) for (const v of params.getAll(name)) q.append(name, v);
    if (!q.has('pageSize')) q.set('pageSize', '50');
    if (token !== null) q.set('continuationToken', token);
    return q;
  };

  let nextToken: string | null = null;
  /** Shows page `n` (0-based) of the tokens read; a page past the last asks for the one after it. */
  async function load(n: number, userAction: boolean): Promise<void> {
    if (timer) clearTimeout(timer);
    if (n < 0) return;
    if (n === tokens.length) {
      if (nextToken === null) return;
      tokens.push(nextToken);
    } else tokens.length = n + 1;
    try {
      const page = await api.list(query(tokens[tokens.length - 1]!));
      if (stopped) return;
      nextToken = page.continuationToken;
      body.replaceChildren(...page.instances.map(row));
      if (page.instances.length === 0) body.append(el('tr', {}, el('td', { colspan: '6', class: 'muted' }, nextToken !== null ? 'No match in this part of the list: go on with Older →' : 'No workflow instances match.')));
      prev.disabled = tokens.length <= 1;
      next.disabled = nextToken === null;
      info.textContent = `page ${tokens.length}, ${page.instances.length} shown`;
    } catch (err) {
      if (!stopped) showError(err, () => void load(tokens.length - 1, true));
      if (userAction) return;
    }
    if (!stopped && live.checked) timer = setTimeout(() => void load(tokens.length - 1, false), REFRESH_MS);
  }
  live.addEventListener('change', () => void load(tokens.length - 1, true));
  void load(0, true);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

function row(i: InstanceSummary): HTMLTableRowElement {
  const link = (id: string) => el('a', { href: `#/instances/${encodeURIComponent(id)}` }, id);
  return el(
    'tr',
    { 'data-instance-id': i.instanceID },
    el('td', {}, link(i.instanceID)),
    el('td', {}, i.workflowName),
    el('td', {}, statusBadge(i.runtimeStatus)),
    el('td', {}, time(i.createdAt)),
    el('td', {}, time(i.lastUpdatedAt)),
    el('td', {}, i.parentInstanceID !== undefined ? link(i.parentInstanceID) : ''),
  );
}
