import { expect } from 'chai';
import { harnessPerSuite, type WorkflowHarness } from './support/harness.js';

/** docs/workflows.md "Transitions", row by row (row numbers in the test names). */
describe('workflow status transitions (docs/workflows.md)', function () {
  this.timeout(60_000);
  let h: WorkflowHarness;

  harnessPerSuite({ store: 'sqlite' }, (started) => (h = started));

  const status = async (id: string) => (await h.get(id)).runtimeStatus;

  /** An `approval` instance that is RUNNING (waiting for its event). */
  async function running(id: string): Promise<string> {
    await h.start('approval', undefined, id);
    expect((await h.waitForStart(id)).runtimeStatus).to.equal('RUNNING');
    return id;
  }

  async function suspended(id: string): Promise<string> {
    await running(id);
    expect((await h.op(id, 'pause')).status).to.equal(202);
    expect(await status(id)).to.equal('SUSPENDED');
    return id;
  }

  async function terminal(kind: 'COMPLETED' | 'FAILED' | 'TERMINATED', id: string): Promise<string> {
    if (kind === 'COMPLETED') await h.start('echo', '"x"', id);
    if (kind === 'FAILED') await h.start('failing', undefined, id);
    if (kind === 'TERMINATED') {
      await running(id);
      await h.op(id, 'terminate');
    }
    expect((await h.waitForCompletion(id)).runtimeStatus).to.equal(kind);
    return id;
  }

  it('rows 1, 2: start → PENDING; the first turn on a worker → RUNNING', async () => {
    // Stop the worker so the PENDING state lasts long enough to read.
    await h.worker!.stop();
    await h.start('approval', undefined, 'row1');
    expect(await status('row1')).to.equal('PENDING');
    await h.startWorker();
    expect((await h.waitForStart('row1')).runtimeStatus).to.equal('RUNNING');
  });

  it('row 3: a scheduled start stays PENDING until its time, then runs', async () => {
    const at = new Date(Date.now() + 1500);
    await h.client().scheduleNewOrchestration('echo', 'later', 'row3', at);
    expect(await status('row3')).to.equal('PENDING');
    expect((await h.waitForCompletion('row3')).runtimeStatus).to.equal('COMPLETED');
  });

  it('row 4: workflow returns → COMPLETED with its output', async () => {
    await terminal('COMPLETED', 'row4');
    expect((await h.get('row4')).properties['svc.workflow.output']).to.equal('"x"');
  });

  it('row 5: workflow throws → FAILED with failure details', async () => {
    await terminal('FAILED', 'row5');
    expect((await h.get('row5')).properties['svc.workflow.failure.error_message']).to.include('kaboom');
  });

  it('row 6: a workflow name no worker registers → FAILED (OrchestratorNotRegisteredError)', async () => {
    await h.start('not-registered', undefined, 'row6');
    const failed = await h.waitForCompletion('row6');
    expect(failed.runtimeStatus).to.equal('FAILED');
    expect(failed.properties['svc.workflow.failure.error_type']).to.equal('OrchestratorNotRegisteredError');
  });

  it('row 7: terminate RUNNING → TERMINATED', async () => {
    await running('row7');
    expect((await h.op('row7', 'terminate')).status).to.equal(202);
    expect((await h.waitForCompletion('row7')).runtimeStatus).to.equal('TERMINATED');
  });

  it('row 8: terminate SUSPENDED → TERMINATED', async () => {
    await suspended('row8');
    expect((await h.op('row8', 'terminate')).status).to.equal(202);
    expect((await h.waitForCompletion('row8')).runtimeStatus).to.equal('TERMINATED');
  });

  it('row 9: terminate PENDING → TERMINATED, with no worker connected', async () => {
    await h.worker!.stop();
    try {
      await h.start('approval', undefined, 'row9');
      expect(await status('row9')).to.equal('PENDING');
      expect((await h.op('row9', 'terminate')).status).to.equal(202);
      expect((await h.waitForCompletion('row9')).runtimeStatus).to.equal('TERMINATED');
    } finally {
      await h.startWorker();
    }
  });

  it('rows 10, 11: pause RUNNING → SUSPENDED, holding events; resume → RUNNING, delivering them', async () => {
    await suspended('row10');
    expect((await h.op('row10', 'raiseEvent/approval', '"held"')).status).to.equal(202);
    expect(await status('row10')).to.equal('SUSPENDED');
    expect((await h.op('row10', 'resume')).status).to.equal(202);
    const done = await h.waitForCompletion('row10');
    expect(done.runtimeStatus).to.equal('COMPLETED');
    expect(done.properties['svc.workflow.output']).to.equal('{"decision":"held"}');
  });

  it('row 12: raise event to RUNNING, PENDING and SUSPENDED instances keeps the status and the event', async () => {
    await running('row12a');
    await h.op('row12a', 'raiseEvent/unrelated', '1');
    expect(await status('row12a')).to.equal('RUNNING');

    await suspended('row12b');
    await h.op('row12b', 'raiseEvent/approval', '2');
    expect(await status('row12b')).to.equal('SUSPENDED');
    await h.op('row12b', 'resume');
    expect((await h.waitForCompletion('row12b')).properties['svc.workflow.output']).to.equal('{"decision":2}');

    await h.worker!.stop();
    await h.start('approval', undefined, 'row12c');
    await h.op('row12c', 'raiseEvent/approval', '3');
    expect(await status('row12c')).to.equal('PENDING');
    await h.startWorker();
    expect((await h.waitForCompletion('row12c')).properties['svc.workflow.output']).to.equal('{"decision":3}');
    await h.op('row12a', 'terminate');
  });

  it('row 13: continue-as-new → RUNNING under the same ID with the new input; events raised meanwhile are kept', async () => {
    await h.start('rounds', '{"round":1,"rounds":3}', 'row13');
    await h.op('row13', 'raiseEvent/finish', '"go"');
    const done = await h.waitForCompletion('row13');
    expect(done.runtimeStatus).to.equal('COMPLETED');
    expect(done.properties['svc.workflow.output']).to.equal('{"round":3,"finish":"go"}');
    expect(done.properties['svc.workflow.input']).to.equal('{"round":3,"rounds":3}');
  });

  it('row 14: pause, resume, terminate and raise event on COMPLETED, FAILED, TERMINATED change nothing (202)', async () => {
    for (const kind of ['COMPLETED', 'FAILED', 'TERMINATED'] as const) {
      const id = await terminal(kind, `row14-${kind.toLowerCase()}`);
      const before = await h.get(id);
      for (const op of ['pause', 'resume', 'terminate', 'raiseEvent/approval']) {
        expect((await h.op(id, op, op.startsWith('raise') ? '1' : undefined)).status, `${op} on ${kind}`).to.equal(202);
      }
      const after = await h.get(id);
      expect(after.runtimeStatus).to.equal(kind);
      expect(after.properties).to.deep.equal(before.properties);
    }
  });

  it('row 15: resume of a RUNNING and pause of a SUSPENDED instance change nothing', async () => {
    await running('row15a');
    expect((await h.op('row15a', 'resume')).status).to.equal(202);
    expect(await status('row15a')).to.equal('RUNNING');
    await suspended('row15b');
    expect((await h.op('row15b', 'pause')).status).to.equal(202);
    expect(await status('row15b')).to.equal('SUSPENDED');
    await h.op('row15b', 'resume');
    expect(await status('row15b')).to.equal('RUNNING');
    await h.op('row15a', 'terminate');
    await h.op('row15b', 'terminate');
  });

  it('row 16: start with the ID of a PENDING, RUNNING or SUSPENDED instance → 409, instance unchanged', async () => {
    await running('row16r');
    await suspended('row16s');
    await h.worker!.stop();
    await h.start('approval', undefined, 'row16p');
    for (const [id, expected] of [['row16p', 'PENDING'], ['row16r', 'RUNNING'], ['row16s', 'SUSPENDED']]) {
      const res = await h.request('POST', `/v1.0/workflows/svc/echo/start?instanceID=${id}`, '"again"');
      expect(res.status).to.equal(409);
      const after = await h.get(id!);
      expect(after).to.include({ runtimeStatus: expected, workflowName: 'approval' });
      expect(after.properties).to.not.have.property('svc.workflow.input');
    }
    await h.startWorker();
    for (const id of ['row16p', 'row16r', 'row16s']) await h.op(id, 'terminate');
  });

  it('row 17: start with the ID of a COMPLETED, FAILED or TERMINATED instance → a new run', async () => {
    for (const kind of ['COMPLETED', 'FAILED', 'TERMINATED'] as const) {
      const id = await terminal(kind, `row17-${kind.toLowerCase()}`);
      await h.start('echo', '"second run"', id);
      const done = await h.waitForCompletion(id);
      expect(done).to.include({ runtimeStatus: 'COMPLETED', workflowName: 'echo' });
      expect(done.properties['svc.workflow.output']).to.equal('"second run"');
    }
  });

  it('row 18: purge of COMPLETED, FAILED, TERMINATED → gone (404)', async () => {
    for (const kind of ['COMPLETED', 'FAILED', 'TERMINATED'] as const) {
      const id = await terminal(kind, `row18-${kind.toLowerCase()}`);
      expect((await h.op(id, 'purge')).status).to.equal(202);
      expect((await h.request('GET', `/v1.0/workflows/svc/${id}`)).status).to.equal(404);
      expect((await h.op(id, 'purge')).status).to.equal(404);
    }
  });

  it('row 19: purge of PENDING, RUNNING, SUSPENDED → 409, nothing deleted', async () => {
    await running('row19r');
    await suspended('row19s');
    await h.worker!.stop();
    await h.start('approval', undefined, 'row19p');
    for (const [id, expected] of [['row19p', 'PENDING'], ['row19r', 'RUNNING'], ['row19s', 'SUSPENDED']]) {
      const res = await h.op(id!, 'purge');
      expect(res.status).to.equal(409);
      expect(res.body?.errorCode).to.equal('ERR_PURGE_WORKFLOW_NOT_COMPLETED');
      expect(await status(id!)).to.equal(expected);
    }
    await h.startWorker();
    for (const id of ['row19p', 'row19r', 'row19s']) await h.op(id, 'terminate');
  });

  it('row 20: terminating a parent over HTTP terminates its running sub-workflow', async () => {
    await h.startParent('row20');
    expect(await status('row20-child')).to.equal('RUNNING');
    await h.op('row20', 'terminate');
    expect((await h.waitForCompletion('row20')).runtimeStatus).to.equal('TERMINATED');
    expect((await h.waitForCompletion('row20-child')).runtimeStatus).to.equal('TERMINATED');
  });
});
