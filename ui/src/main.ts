/**
 * The UI's entry: a hash router (`#/` the list, `#/instances/<id>` one instance, `#/runtime` what svcd runs); a
 * page stops when left.
 */
import { clearNotice } from './dom.js';
import { renderInstancePage } from './instance-page.js';
import { renderListPage } from './list-page.js';
import { renderRuntimePage } from './runtime-page.js';

const root = document.getElementById('app')!;
let leave: (() => void) | undefined;

function route(): void {
  leave?.();
  clearNotice();
  const hash = location.hash.replace(/^#/, '') || '/';
  const instance = /^\/instances\/([^?]+)/.exec(hash);
  if (instance) {
    leave = renderInstancePage(root, decodeURIComponent(instance[1]!));
    return;
  }
  if (hash === '/runtime') {
    leave = renderRuntimePage(root);
    return;
  }
  const query = hash.includes('?') ? hash.slice(hash.indexOf('?') + 1) : '';
  leave = renderListPage(root, new URLSearchParams(query));
}

window.addEventListener('hashchange', route);
route();
