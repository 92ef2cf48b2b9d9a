import { expect } from 'chai';
import type { Job } from '../../src/jobs/job.js';
import { firstPoint, isExpired, nextPoint } from '../../src/jobs/job-timing.js';
import { expectRuntimeError } from '../support/expect-runtime-error.js';

const job = (fields: Omit<Job, 'name'>): Job => ({ name: 'j', ...fields });
const T0 = Date.parse('2026-03-14T10:20:30.000Z');

describe('job timing: first point, next point, end', () => {
  it('a due time alone fires once, at the due time (a duration from creation or an RFC 3339 time)', () => {
    expect(firstPoint(job({ dueTime: '10s' }), T0)).to.equal(T0 + 10_000);
    expect(firstPoint(job({ dueTime: 'PT1M' }), T0)).to.equal(T0 + 60_000);
    expect(firstPoint(job({ dueTime: '2026-03-14T11:00:00Z' }), T0)).to.equal(Date.parse('2026-03-14T11:00:00Z'));
    expect(nextPoint(job({ dueTime: '10s' }), T0, T0 + 10_000, 1, T0 + 10_000)).to.equal(undefined);
  });

  it('a schedule alone starts at its first point after creation; a due time moves the start', () => {
    expect(firstPoint(job({ schedule: '@every 5s' }), T0)).to.equal(T0 + 5000);
    expect(firstPoint(job({ schedule: '@every 5s', dueTime: '1s' }), T0)).to.equal(T0 + 1000);
    expect(nextPoint(job({ schedule: '@every 5s', dueTime: '1s' }), T0, T0 + 1000, 1, T0 + 1010)).to.equal(T0 + 6000);
  });

  it('repeats count every firing; the job ends with the last one', () => {
    const j = job({ schedule: '@every 1s', repeats: 2 });
    expect(nextPoint(j, T0, T0 + 1000, 1, T0 + 1000)).to.equal(T0 + 2000);
    expect(nextPoint(j, T0, T0 + 2000, 2, T0 + 2000)).to.equal(undefined);
  });

  it('points missed while no svcd ran are not replayed: the next is the first after now', () => {
    const j = job({ schedule: '@every 1s' });
    expect(nextPoint(j, T0, T0 + 1000, 1, T0 + 60_500)).to.equal(T0 + 61_500);
    const cron = job({ schedule: '0 */5 * * * *' });
    const late = T0 + 3_600_000;
    expect(new Date(nextPoint(cron, T0, T0, 1, late)!).getUTCMinutes() % 5).to.equal(0);
    expect(nextPoint(cron, T0, T0, 1, late)! - late).to.be.within(1, 300_000);
  });

  it('a TTL from creation ends the job: no point at or after it', () => {
    const j = job({ schedule: '@every 1s', ttl: '2500ms' });
    expect(nextPoint(j, T0, T0 + 1000, 1, T0 + 1000)).to.equal(T0 + 2000);
    expect(nextPoint(j, T0, T0 + 2000, 2, T0 + 2000)).to.equal(undefined);
    expect(isExpired(j, T0, T0 + 2499)).to.equal(false);
    expect(isExpired(j, T0, T0 + 2500)).to.equal(true);
  });

  it('refuses a job that could never fire or cannot be read, with the catalogue code', () => {
    expectRuntimeError(() => firstPoint(job({}), T0), 'DAPR_SCHEDULER_SCHEDULE_EMPTY', /neither a schedule nor a due time/);
    expectRuntimeError(() => firstPoint(job({ schedule: '0 61 * * * *' }), T0), 'DAPR_SCHEDULER_SCHEDULE_JOB', /minute '61'/);
    expectRuntimeError(() => firstPoint(job({ schedule: '@every 10ms' }), T0), 'DAPR_SCHEDULER_SCHEDULE_JOB', /at least 100ms/);
    expectRuntimeError(() => firstPoint(job({ dueTime: 'soon' }), T0), 'DAPR_SCHEDULER_SCHEDULE_JOB', /dueTime 'soon'/);
    expectRuntimeError(() => firstPoint(job({ dueTime: '10s', ttl: '5s' }), T0), 'DAPR_SCHEDULER_SCHEDULE_JOB', /ttl ends before its first firing/);
    expectRuntimeError(() => firstPoint(job({ schedule: '0 0 0 30 2 *' }), T0), 'DAPR_SCHEDULER_SCHEDULE_JOB', /never fires/);
  });
});
