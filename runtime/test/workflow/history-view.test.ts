import { expect } from 'chai';
import { RuntimeError } from '../../src/errors/runtime-error.js';
import { eventIndex, historyPage } from '../../src/workflow/history-view.js';

describe('workflow history view: positions', () => {
  it('refuses an event index past the history, also 0 of a history with no events yet (400, not a missing event)', () => {
    expect(eventIndex('2', 3, 'event index')).to.equal(2);
    for (const [index, length] of [['3', 3], ['0', 0], ['x', 3]] as const) {
      expect(() => eventIndex(index, length, 'event index'))
        .to.throw(RuntimeError)
        .with.property('code', 'ERR_MALFORMED_REQUEST');
    }
  });

  it('answers an empty last page for a token at the history end, also of an empty history', () => {
    expect(historyPage('i', { historyLength: 0, events: [] }, { continuationToken: '0', whole: false })).to.deep.equal({ instanceID: 'i', events: [], continuationToken: null });
  });
});
