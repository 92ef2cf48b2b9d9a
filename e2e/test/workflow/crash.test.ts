import { expect } from 'chai';
import { ACTOR_STORE_KINDS } from '@svc/runtime/test-support';
import { WorkflowHarness } from './support/harness.js';
import type { WorkerReports } from './support/worker-process.js';
import type { StepsInput } from './support/test-workflows.js';

/** Seeded so a failing run can be replayed: `CRASH_SEED=<n> npm test -- --grep crash`. */
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
function randomInt(seed: number, min: number, max: number): number {
  const x = Math.sin(seed) * 10_000;
  return min + Math.floor((x - Math.floor(x)) * (max - min + 1));
}

/** Completions of TaskScheduled ids in one delivered history, keyed by taskScheduledId. */
function completedSteps(results: Record<string, number>): number {
  return Object.keys(results).length;
}

/**
 * What "each activity result recorded exactly once" means, checked on the histories svcd delivered to the
 * worker: no history ever held two results for one task, and the final one holds exactly one result for each of
 * the `steps` tasks. The output's results all come from real executions of the activity; executions may exceed
 * the steps (at-least-once: an activity whose result was lost in a crash runs again), and the test prints them.
 */
async function expectRecordedOnce(reports: WorkerReports, instanceId: string, steps: number, output: string[]): Promise<void> {
  // The worker reports each delivered history over IPC, apart from its answer to svcd, so the report of the final
  // history can arrive after the completion is visible over HTTP: wait for it instead of racing it.
  await reports.seen('turn', (t) => t.instanceId === instanceId && completedSteps(t.results) === steps);
  const turns = reports.of('turn', instanceId);
  for (const turn of turns) {
    for (const [task, count] of Object.entries(turn.results)) expect(count, `task ${task} in a delivered history`).to.equal(1);
  }
  expect(Math.max(...turns.map((t) => completedSteps(t.results)))).to.equal(steps);

  expect(output).to.have.length(steps);
  const executed = new Set(reports.of('activity-done', instanceId).map((m) => m.token));
  output.forEach((token, i) => {
    expect(token.startsWith(`${i + 1}:`), token).to.equal(true);
    expect(executed.has(token), `result of step ${i + 1} came from a real execution`).to.equal(true);
  });
  const runs = reports.of('activity-start', instanceId).length;
  console.log(`      ${instanceId}: ${steps} results recorded once each; ${runs} activity executions started (${runs - steps} re-runs after a crash)`);
}

for (const store of ACTOR_STORE_KINDS) {
  describe(`workflow crash recovery on ${store} (seed ${SEED})`, function () {
    this.timeout(180_000);
    let h: WorkflowHarness;

    beforeEach(async () => {
      h = await WorkflowHarness.start({ store });
    });
    afterEach(async () => {
      await h?.close();
    });

    it('completes a 20-step workflow after kill -9 of svcd between turns, during an activity and with a timer pending', async () => {
      const input: StepsInput = { count: 20, sleepMs: 400, timerEvery: 5, timerMs: 1500 };
      const betweenTurnsAfter = randomInt(SEED, 2, 4);
      const duringActivity = randomInt(SEED + 1, 7, 9);
      const id = `crash-${store}`;

      // 1. Between turns: right after a turn that recorded `betweenTurnsAfter` results was stored.
      const turnStored = h.reports.next('turn', (t) => t.instanceId === id && t.delivered && completedSteps(t.results) === betweenTurnsAfter);
      await h.start('steps', JSON.stringify(input), id);
      await turnStored;
      await h.crashAndRestart();

      // 2. During an activity: while the worker is executing step `duringActivity` (its result cannot be delivered).
      await h.reports.next('activity-start', (a) => a.instanceId === id && a.step === duringActivity);
      await h.crashAndRestart();

      // 3. With a timer pending: after the turn that handled step 15 (a timer follows every 5th step).
      await h.reports.next('turn', (t) => t.instanceId === id && t.delivered && completedSteps(t.results) === 15);
      await h.crashAndRestart();

      const done = await h.waitForCompletion(id, 150);
      expect(done.runtimeStatus, JSON.stringify(done)).to.equal('COMPLETED');
      await expectRecordedOnce(h.reports, id, 20, JSON.parse(done.properties['svc.workflow.output']!) as string[]);
    });

    it('completes after the worker process is killed during an activity and a new one connects', async () => {
      const id = `worker-crash-${store}`;
      const input: StepsInput = { count: 8, sleepMs: 400 };
      const killAt = randomInt(SEED + 2, 2, 6);
      const started = h.reports.next('activity-start', (a) => a.instanceId === id && a.step === killAt);
      await h.start('steps', JSON.stringify(input), id);
      await started;
      await h.worker!.kill();
      await h.startWorker();
      const done = await h.waitForCompletion(id, 120);
      expect(done.runtimeStatus, JSON.stringify(done)).to.equal('COMPLETED');
      await expectRecordedOnce(h.reports, id, 8, JSON.parse(done.properties['svc.workflow.output']!) as string[]);
      // The killed execution never finished, so step `killAt` ran at least twice (started twice).
      expect(h.reports.of('activity-start', id).filter((a) => a.step === killAt).length).to.be.at.least(2);
    });
  });
}
