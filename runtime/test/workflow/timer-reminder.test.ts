import { expect } from 'chai';
import { firedTimer, timerReminder } from '../../src/workflow/timer-reminder.js';

describe('workflow timer reminders', () => {
  it('name the generation and the timer id; a fire without data takes its fire time from the due time', () => {
    const name = timerReminder(3, 17);
    expect(name).to.equal('timer-3-17');
    expect(firedTimer(name, undefined, 1_795_649_984_013)).to.deep.equal({ generation: 3, timerId: 17, fireAt: 1_795_649_984_013 });
  });

  it('read what a reminder stored by an earlier svcd carries as data', () => {
    const data = Buffer.from(JSON.stringify({ generation: 2, timerId: 5, fireAt: 1_700_000_000_000 }));
    expect(firedTimer('timer-2-5', data, 1_700_000_000_900)).to.deep.equal({ generation: 2, timerId: 5, fireAt: 1_700_000_000_000 });
  });
});
