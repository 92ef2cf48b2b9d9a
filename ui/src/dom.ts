/** A few DOM helpers: the UI has no framework, so pages build their elements with `el`. */
type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

export function button(label: string, onClick: () => void, attrs: Record<string, string> = {}): HTMLButtonElement {
  const b = el('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', onClick);
  return b;
}

/** Local time, to the second; the full ISO time in the tooltip. */
export function time(iso: string): HTMLElement {
  const d = new Date(iso);
  return el('time', { datetime: iso, title: iso }, Number.isNaN(d.getTime()) ? iso : d.toLocaleString());
}

export function statusBadge(status: string): HTMLElement {
  return el('span', { class: `status status-${status.toLowerCase()}`, 'data-status': status }, status);
}

/** A payload shown as pretty JSON when it is JSON, else as it is. */
export function payload(text: string | undefined): HTMLElement {
  if (text === undefined) return el('span', { class: 'muted' }, '—');
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // not JSON: as stored
  }
  return el('pre', { class: 'payload' }, shown);
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

export interface DialogField {
  name: string;
  label: string;
  multiline?: boolean;
  value?: string;
  /** Values offered as the field is typed in (a datalist). */
  suggestions?: readonly string[];
}

/**
 * Asks before an action: a modal with the action's description, optional fields and Confirm/Cancel. Resolves
 * with the fields' values, or undefined when cancelled.
 */
export function confirmAction(title: string, text: string, fields: DialogField[] = []): Promise<Record<string, string> | undefined> {
  return new Promise((resolve) => {
    const inputs = fields.map((f) => {
      const input = f.multiline ? el('textarea', { name: f.name, rows: '4' }) : el('input', { name: f.name, type: 'text', autocomplete: 'off' });
      input.value = f.value ?? '';
      return { f, input };
    });
    const dialog = el('dialog', { class: 'confirm' });
    const done = (confirmed: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(confirmed ? Object.fromEntries(inputs.map(({ f, input }) => [f.name, input.value])) : undefined);
    };
    dialog.append(
      el('h2', {}, title),
      el('p', {}, text),
      ...inputs.map(({ f, input }) => el('label', {}, f.label, input, suggestionsFor(f, input))),
      el('div', { class: 'actions' }, button('Cancel', () => done(false)), button('Confirm', () => done(true), { class: 'primary', 'data-action': 'confirm' })),
    );
    dialog.addEventListener('cancel', () => done(false));
    document.body.append(dialog);
    dialog.showModal();
  });
}

function suggestionsFor(f: DialogField, input: HTMLInputElement | HTMLTextAreaElement): HTMLDataListElement | null {
  if (!f.suggestions?.length || input instanceof HTMLTextAreaElement) return null;
  const id = `${f.name}-suggestions`;
  input.setAttribute('list', id);
  return el('datalist', { id }, ...f.suggestions.map((value) => el('option', { value })));
}

/** Shows an error (or success) line at the top of the page for a while. */
export function notify(message: string, kind: 'error' | 'ok' = 'error'): void {
  const bar = document.getElementById('notice');
  if (!bar) return;
  bar.textContent = message;
  bar.className = `notice notice-${kind}`;
  bar.hidden = false;
}

export function clearNotice(): void {
  const bar = document.getElementById('notice');
  if (bar) bar.hidden = true;
}
