import { expect } from 'chai';
import { SvcdProcess } from '@svc/runtime/test-support';
import { harnessPerSuite, WorkflowHarness } from './support/harness.js';

const LIMIT = 64 * 1024;

describe('workflow HTTP API: bad input (real svcd)', function () {
  this.timeout(60_000);
  let h: WorkflowHarness;

  harnessPerSuite({ store: 'sqlite', args: ['--max-request-size', String(LIMIT)] }, (started) => (h = started));

  async function expectError(res: Response, status: number, code: string): Promise<void> {
    const text = await res.text();
    expect(res.status, text).to.equal(status);
    const body = JSON.parse(text) as { errorCode: string; message: string };
    expect(body.errorCode).to.equal(code);
    expect(body.message).to.be.a('string').and.not.equal('');
  }


  it('rejects instance IDs with other characters, over 256 characters or empty, on every route, and stores nothing', async () => {
    const cases: [string, string][] = [
      ['bad%24id', 'ERR_INSTANCE_ID_INVALID'],
      ['has.dot', 'ERR_INSTANCE_ID_INVALID'],
      ['white%20space', 'ERR_INSTANCE_ID_INVALID'],
      ['slash%2Finside', 'ERR_INSTANCE_ID_INVALID'],
      ['empty%3A%3Asegment', 'ERR_INSTANCE_ID_INVALID'],
      ['a'.repeat(257), 'ERR_INSTANCE_ID_TOO_LONG'],
      ['', 'ERR_INSTANCE_ID_PROVIDED_MISSING'],
    ];
    for (const [id, code] of cases) {
      for (const [method, path] of everyRouteFor(id)) await expectError(await h.request(method, path), 400, code);
    }
    // Start keeps the strict rule for user-chosen IDs: no colon (reserved for SDK sub-workflows), at most 64.
    await expectError(await h.request('POST', `/v1.0/workflows/svc/echo/start?instanceID=${'a'.repeat(65)}`), 400, 'ERR_INSTANCE_ID_TOO_LONG');
    await expectError(await h.request('POST', '/v1.0/workflows/svc/echo/start?instanceID=parent%3A0001'), 400, 'ERR_INSTANCE_ID_INVALID');
    await expectError(await h.request('POST', '/v1.0/workflows/svc/echo/start?instanceID=parent:0001'), 400, 'ERR_INSTANCE_ID_INVALID');
    // 64 characters is fine and round-trips.
    const longest = 'x'.repeat(63) + '9';
    await h.start('echo', '"max"', longest);
    expect((await h.waitForCompletion(longest)).instanceID).to.equal(longest);
    // Nothing was stored for the rejected IDs (the shortened, valid-looking forms do not exist either).
    for (const id of ['bad', 'has', 'white', 'a'.repeat(64), 'a'.repeat(65), 'parent%3A0001', 'parent']) {
      expect((await h.request('GET', `/v1.0/workflows/svc/${id}`)).status).to.equal(404);
    }
  });

  it('rejects an unknown workflow component with 400 ERR_WORKFLOW_COMPONENT_NOT_FOUND', async () => {
    await expectError(await h.request('POST', '/v1.0/workflows/temporal/echo/start?instanceID=cmp-1'), 400, 'ERR_WORKFLOW_COMPONENT_NOT_FOUND');
    await expectError(await h.request('GET', '/v1.0/workflows/SVC/cmp-1'), 400, 'ERR_WORKFLOW_COMPONENT_NOT_FOUND');
    await expectError(await h.request('POST', '/v1.0-beta1/workflows/other/cmp-1/terminate'), 400, 'ERR_WORKFLOW_COMPONENT_NOT_FOUND');
    expect((await h.request('GET', '/v1.0/workflows/svc/cmp-1')).status).to.equal(404);
  });

  it('rejects a missing event name and unknown operations with 400', async () => {
    await expectError(await h.request('POST', '/v1.0/workflows/svc/x1/raiseEvent/'), 400, 'ERR_WORKFLOW_EVENT_NAME_MISSING');
    await expectError(await h.request('POST', '/v1.0/workflows/svc/x1/rewind'), 400, 'ERR_MALFORMED_REQUEST');
  });

  it('fails an instance of a workflow name no worker registers, with the SDK error in its failure details', async () => {
    const id = await h.start('no-such-workflow', '{}', 'unknown-name');
    const failed = await h.waitForCompletion(id);
    expect(failed.runtimeStatus).to.equal('FAILED');
    expect(failed.workflowName).to.equal('no-such-workflow');
    expect(failed.properties['svc.workflow.failure.error_type']).to.equal('OrchestratorNotRegisteredError');
    expect(failed.properties['svc.workflow.failure.error_message']).to.include('no-such-workflow');
  });

  it('refuses a start input or event payload over --max-request-size with 413 and stores nothing', async () => {
    const huge = JSON.stringify('z'.repeat(LIMIT));
    await expectError(await h.request('POST', '/v1.0/workflows/svc/echo/start?instanceID=huge-1', huge), 413, 'ERR_BODY_TOO_LARGE');
    expect((await h.request('GET', '/v1.0/workflows/svc/huge-1')).status).to.equal(404);

    const id = await h.start('approval', undefined, 'huge-event');
    await h.waitForStart(id);
    await expectError(await h.request('POST', `/v1.0/workflows/svc/${id}/raiseEvent/approval`, huge), 413, 'ERR_BODY_TOO_LARGE');
    expect((await h.get(id)).runtimeStatus).to.equal('RUNNING');
    await h.op(id, 'terminate');
  });

  it('round-trips a large input just under the limit unchanged', async () => {
    const big = JSON.stringify({ blob: 'q'.repeat(LIMIT - 64) });
    expect(Buffer.byteLength(big)).to.be.below(LIMIT);
    const id = await h.start('echo', big, 'large-ok');
    const done = await h.waitForCompletion(id);
    expect(done.runtimeStatus).to.equal('COMPLETED');
    expect(done.properties['svc.workflow.input']).to.equal(big);
    expect(done.properties['svc.workflow.output']).to.equal(big);
  });

  it('refuses a body that is not UTF-8 text with 400', async () => {
    await expectError(await h.request('POST', '/v1.0/workflows/svc/echo/start?instanceID=binary', Buffer.from([0xc3, 0x28, 0xff])), 400, 'ERR_MALFORMED_REQUEST');
    expect((await h.request('GET', '/v1.0/workflows/svc/binary')).status).to.equal(404);
  });

  it('answers 404 for an event raised to an unknown instance and creates nothing', async () => {
    await expectError(await h.request('POST', '/v1.0/workflows/svc/nobody-home/raiseEvent/approval', '1'), 404, 'ERR_INSTANCE_ID_NOT_FOUND');
    expect((await h.request('GET', '/v1.0/workflows/svc/nobody-home')).status).to.equal(404);
  });
});

describe('workflow HTTP API without a worker connected', function () {
  this.timeout(60_000);

  it('keeps a started instance PENDING until a worker connects, then runs it', async () => {
    const h = await WorkflowHarness.start({ store: 'sqlite', worker: false });
    try {
      const id = await h.start('echo', '"later"', 'queued-1');
      const pending = await h.get(id);
      expect(pending.runtimeStatus).to.equal('PENDING');
      expect(pending.properties['svc.workflow.input']).to.equal('"later"');
      await h.startWorker();
      expect((await h.waitForCompletion(id)).runtimeStatus).to.equal('COMPLETED');
    } finally {
      await h.close();
    }
  });
});

describe('workflow HTTP API without an actor state store', function () {
  this.timeout(30_000);

  it('answers 500 ERR_ACTOR_RUNTIME_NOT_FOUND on every route', async () => {
    const svcd = await SvcdProcess.start({ appId: 'wf-nostore' });
    try {
      for (const [method, path] of everyRouteFor('ok-id')) {
        const res = await svcd.request(method, path);
        expect(res.status, path).to.equal(500);
        expect(((await res.json()) as { errorCode: string }).errorCode).to.equal('ERR_ACTOR_RUNTIME_NOT_FOUND');
      }
    } finally {
      await svcd.dispose();
    }
  });
});

/** Every workflow route, addressed to one instance ID (start uses it as `instanceID`). */
function everyRouteFor(id: string): [string, string][] {
  return [
    ['POST', `/v1.0/workflows/svc/echo/start?instanceID=${id}`],
    ['GET', `/v1.0/workflows/svc/${id}`],
    ['POST', `/v1.0/workflows/svc/${id}/terminate`],
    ['POST', `/v1.0/workflows/svc/${id}/raiseEvent/approval`],
    ['POST', `/v1.0/workflows/svc/${id}/pause`],
    ['POST', `/v1.0/workflows/svc/${id}/resume`],
    ['POST', `/v1.0/workflows/svc/${id}/purge`],
  ];
}
