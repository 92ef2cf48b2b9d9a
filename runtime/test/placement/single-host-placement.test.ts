import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { SingleHostPlacement } from '../../src/actors/placement.js';

describe('SingleHostPlacement', () => {
  it('changed() leaves no abort listener behind on a long-lived signal (the engine waits on it every 5 s)', async () => {
    const placement = new SingleHostPlacement();
    const shutdown = new AbortController();
    for (let i = 0; i < 20; i++) await placement.changed(1, shutdown.signal);
    expect(getEventListeners(shutdown.signal, 'abort')).to.have.length(0);
    const pending = placement.changed(60_000, shutdown.signal);
    shutdown.abort();
    await pending; // an abort ends the wait at once
  });
});
