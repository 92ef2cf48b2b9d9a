/**
 * What the UI does with a failed call: a 401 asks for the API token (kept in this browser session only) and
 * retries; anything else is shown with svcd's error code and message.
 */
import { ApiError, token } from './api.js';
import { el, notify } from './dom.js';

export function showError(err: unknown, retry: () => void): void {
  if (err instanceof ApiError && err.status === 401) {
    askForToken(retry);
    return;
  }
  notify(err instanceof ApiError ? `${err.code}: ${err.message}` : String(err));
}

let asking = false;

function askForToken(retry: () => void): void {
  if (asking) return;
  asking = true;
  const input = el('input', { type: 'password', name: 'token', autocomplete: 'off', id: 'token-input' });
  const form = el(
    'form',
    { method: 'dialog' },
    el('h2', {}, 'API token'),
    el('p', {}, 'This svcd asks for its API token (SVC_API_TOKEN). It is kept in this browser tab only, until the tab is closed.'),
    el('label', {}, 'Token', input),
    el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary' }, 'Use token')),
  );
  const dialog = el('dialog', { class: 'confirm', id: 'token-dialog' }, form);
  form.addEventListener('submit', () => {
    token.set(input.value);
    asking = false;
    dialog.remove();
    retry();
  });
  if (token.get() !== null) form.prepend(el('p', { class: 'notice notice-error' }, 'The token was not accepted.'));
  document.body.append(dialog);
  dialog.showModal();
}
