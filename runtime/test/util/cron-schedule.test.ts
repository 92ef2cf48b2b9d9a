import { expect } from 'chai';
import { InvalidScheduleError, parseSchedule } from '../../src/util/cron-schedule.js';

const at = (text: string) => new Date(text).getTime();
const iso = (ms: number) => {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
};

describe('cron schedules (bindings.cron and jobs)', () => {
  const from = at('2026-03-14T10:20:30'); // a Saturday, local time
  const cases: [string, string][] = [
    ['* * * * * *', '2026-03-14T10:20:31'],
    ['0 30 * * * *', '2026-03-14T10:30:00'],
    ['*/15 * * * *', '2026-03-14T10:30:00'], // 5 fields: minute first
    ['0 0 9-17/4 * * *', '2026-03-14T13:00:00'],
    ['0 0 8 * * 1', '2026-03-16T08:00:00'], // next Monday
    ['0 0 8 * * 7', '2026-03-15T08:00:00'], // 7 is Sunday
    ['0 0 0 1 * *', '2026-04-01T00:00:00'],
    ['0 0 0 13 * 5', '2026-03-20T00:00:00'], // day of month OR day of week (Friday the 20th first)
    ['@hourly', '2026-03-14T11:00:00'],
    ['@daily', '2026-03-15T00:00:00'],
    ['@monthly', '2026-04-01T00:00:00'],
    ['@yearly', '2027-01-01T00:00:00'],
  ];
  for (const [schedule, next] of cases) {
    it(`${schedule} → ${next}`, () => expect(iso(parseSchedule(schedule).next(from))).to.equal(next));
  }

  it('@every counts from the last firing', () => {
    expect(parseSchedule('@every 1m30s').next(from) - from).to.equal(90_000);
  });

  it('refuses what it cannot read, saying why', () => {
    expect(() => parseSchedule('* * *')).to.throw(InvalidScheduleError, /5 or 6 fields/);
    expect(() => parseSchedule('0 61 * * * *')).to.throw(InvalidScheduleError, /minute '61' is outside 0-59/);
    expect(() => parseSchedule('0 0 0 * * MON')).to.throw(InvalidScheduleError, /day of week 'MON'/);
    expect(() => parseSchedule('@every 10ms')).to.throw(InvalidScheduleError, /at least 1000ms/);
    expect(() => parseSchedule('@every soon')).to.throw(InvalidScheduleError, /needs a duration/);
    expect(() => parseSchedule('0 0 0 30 2 *')).to.throw(InvalidScheduleError, /never fires/);
  });

  it('takes a shorter @every when the caller allows it (jobs: sub-second)', () => {
    expect(parseSchedule('@every 250ms', 100).next(from) - from).to.equal(250);
  });
});
