import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const historyEvents = new URL('../../src/workflow/history-events.js', import.meta.url).href;

/**
 * Runs `body` (which ends by printing a number) in a Node process with V8's natives syntax, so it can ask V8
 * whether objects share a hidden class (`%HaveSameMap`): optimized code that starts a literal with a spread made a
 * new hidden class for every object on Node 20, ~300 bytes kept per event of a history in memory.
 */
function distinctShapes(body: string): number {
  const script = `
    const { changedEvent, executionStarted, orchestratorStarted, taskCompleted, taskScheduled } = await import(${JSON.stringify(historyEvents)});
    const distinct = (objects) => { const reps = []; for (const o of objects) if (!reps.some((r) => %HaveSameMap(r, o))) reps.push(o); return reps.length; };
    ${body}`;
  return Number(execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: fileURLToPath(new URL('.', import.meta.url)) }).trim());
}

describe('history events share hidden classes (kept by the thousand in histories, inboxes and held work items)', () => {
  it('events of one kind made by the factories, hot enough to be optimized, share a hidden class per set of fields', () => {
    const shapes = distinctShapes(`
      const made = [];
      for (let i = 0; i < 30000; i++) {
        made.push(orchestratorStarted({ timestamp: Date.now() }));
        made.push(executionStarted({ timestamp: Date.now() }, { name: 'w', instanceId: 'i' + i, input: i % 2 ? '"x"' : undefined }));
        made.push(taskScheduled({ timestamp: Date.now(), eventId: i }, 'a', i % 3 ? '"y"' : undefined));
        made.push(changedEvent(taskCompleted({ timestamp: 1 }, i, '"r"'), { timestamp: Date.now() }));
      }
      console.log(distinct(made));`);
    // orchestratorStarted 1, executionStarted with and without input 2, taskScheduled 2, taskCompleted 1
    expect(shapes).to.equal(6);
  });
});
