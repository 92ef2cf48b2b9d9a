import type { Writable } from 'node:stream';

const corked = new WeakSet<Writable>();

/**
 * Corks `stream` until the event loop's next turn, at its first write in this one: what a call writes piecemeal
 * (a head, a body chunk and the end, each from another callback) leaves in one system call instead of one each.
 * Node's own corking lasts until the next tick only, and a body's end comes a tick after its last chunk.
 */
export function corkForTurn(stream: Writable): void {
  if (corked.has(stream)) return;
  corked.add(stream);
  stream.cork();
  setImmediate(() => {
    corked.delete(stream);
    stream.uncork();
  });
}
