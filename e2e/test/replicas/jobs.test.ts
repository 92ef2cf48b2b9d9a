/**
 * 10,000 jobs on two replicas of one app sharing a Redis actor store, both sidecars firing into one real HTTP app:
 * one replica is kill -9'd while the jobs fire and comes back as a new svcd. Every job fires (the survivor takes the
 * dead replica's partitions and their reminders); a firing may come twice only if it was being handed over when
 * its replica died (at least once), never zero times.
 */
import { expect } from 'chai';
import { JobApp } from '../support/job-app.js';
import { ReplicaSet } from './replica-set.js';

const JOBS = 10_000;
const SCHEDULERS = 64;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('10,000 jobs on two replicas, one killed while they fire', function () {
  this.timeout(300_000);
  const app = new JobApp();
  let set: ReplicaSet | undefined;

  before(() => app.start());
  after(async () => {
    await set?.close();
    await app.stop();
  });

  it('every job fires, through the kill -9 and the new replica', async () => {
    set = await ReplicaSet.start({ store: 'redis', replicas: 2, workers: false, args: ['--app-port', String(app.port)] });
    const s = set;
    const names = Array.from({ length: JOBS }, (_, i) => `job-${String(i).padStart(5, '0')}`);
    // Each due 15 s after it was scheduled: the firings follow the scheduling, so the kill below (once the
    // scheduling is done and the firings have begun) lands among them however fast this machine schedules.
    const scheduleStarted = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: SCHEDULERS }, async () => {
        for (let i = next++; i < JOBS; i = next++) {
          const res = await s.any().request('POST', `/v1.0-alpha1/jobs/${names[i]}`, JSON.stringify({ dueTime: '15s', data: { i } }), { 'content-type': 'application/json' });
          if (res.status !== 204) throw new Error(`scheduling ${names[i]} answered ${res.status}: ${await res.text()}`);
        }
      }),
    );
    const scheduled = Date.now();
    while (app.firings.length === 0) await sleep(50);
    await sleep(500);
    const firedBeforeKill = app.firings.length;
    expect(firedBeforeKill, 'every job fired before the kill').to.be.below(JOBS);
    await s.kill(0);
    await s.restart(0);
    const deadline = Date.now() + 120_000;
    const fired = () => new Set(app.firings.map((f) => f.name));
    while (fired().size < JOBS && Date.now() < deadline) await sleep(250);
    const missing = names.filter((n) => !fired().has(n));
    expect(missing.length, `jobs never fired, e.g. ${missing.slice(0, 5).join(', ')}`).to.equal(0);
    for (const f of app.firings) expect(JSON.parse(f.body)).to.deep.equal({ i: Number(f.name.slice(4)) });
    const duplicates = app.firings.length - JOBS;
    // Only firings under way in the killed replica can come again: at most its reminder turns in flight (512).
    expect(duplicates).to.be.within(0, 512);
    const firstFiring = Math.min(...app.firings.map((f) => f.at));
    const lastFiring = Math.max(...app.firings.map((f) => f.at));
    console.log(
      `      ${JOBS} jobs scheduled in ${((scheduled - scheduleStarted) / 1000).toFixed(1)} s; ${firedBeforeKill} fired before the kill, ` +
        `firings from the first to the last ${((lastFiring - firstFiring) / 1000).toFixed(1)} s; ${duplicates} fired twice`,
    );
    for (const name of names.filter((_, i) => i % 1000 === 0)) expect((await s.any().request('GET', `/v1.0-alpha1/jobs/${name}`)).status, name).to.equal(404);
  });
});
