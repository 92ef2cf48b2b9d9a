import { expect } from 'chai';
import { harnessPerSuite, type WorkflowHarness } from './support/harness.js';

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('workflow HTTP API (real svcd, real @dapr/durabletask-js worker)', function () {
  this.timeout(60_000);
  let h: WorkflowHarness;

  harnessPerSuite({ store: 'sqlite' }, (started) => (h = started));

  it('starts with the body as input byte-for-byte and reports output, custom status and RFC 3339 UTC times', async () => {
    const input = '{"item": "paperclips",   "qty": 3, "note": "ünïcode ✓"}';
    const id = await h.start('echo', input, 'order-42');
    expect(id).to.equal('order-42');
    const done = await h.waitForCompletion(id);
    expect(done).to.include({ instanceID: 'order-42', workflowName: 'echo', runtimeStatus: 'COMPLETED' });
    expect(done.createdAt).to.match(RFC3339_UTC);
    expect(done.lastUpdatedAt).to.match(RFC3339_UTC);
    expect(Date.parse(done.lastUpdatedAt)).to.be.at.least(Date.parse(done.createdAt));
    expect(done.properties).to.deep.equal({
      'svc.workflow.input': input,
      'svc.workflow.output': JSON.stringify(JSON.parse(input)),
      'svc.workflow.custom_status': 'echoing',
    });
  });

  it('generates a UUID instance ID when none is given', async () => {
    const id = await h.start('echo', '1');
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    expect((await h.waitForCompletion(id)).properties['svc.workflow.output']).to.equal('1');
  });

  it('answers the same routes under /v1.0-beta1 and /v1.0-alpha1 and with the dapr component alias', async () => {
    for (const [i, prefix] of ['/v1.0-beta1/workflows/dapr', '/v1.0-alpha1/workflows/svc', '/v1.0/workflows/dapr'].entries()) {
      const id = `alias-${i}`;
      const res = await h.request('POST', `${prefix}/approval/start?instanceID=${id}`);
      expect(res.status).to.equal(202);
      await h.waitForStart(id);
      expect((await h.request('POST', `${prefix}/${id}/raiseEvent/approval`, '"yes"')).status).to.equal(202);
      await h.waitForCompletion(id);
      const got = await h.request('GET', `${prefix}/${id}`);
      expect(got.status).to.equal(200);
      const output = prefix.endsWith('/dapr') ? 'dapr.workflow.output' : 'svc.workflow.output';
      expect(((await got.json()) as { properties: Record<string, string> }).properties[output]).to.equal('{"decision":"yes"}');
      expect((await h.request('POST', `${prefix}/${id}/purge`)).status).to.equal(202);
      expect((await h.request('GET', `${prefix}/${id}`)).status).to.equal(404);
    }
  });

  it('delivers a raised event, also one raised before the workflow waits for it', async () => {
    const early = await h.start('approval', undefined, 'early-event');
    // Raised at once: the instance may still be PENDING; the event must be kept until the workflow waits.
    expect((await h.op(early, 'raiseEvent/approval', '{"by":"alice"}')).status).to.equal(202);
    expect((await h.waitForCompletion(early)).properties['svc.workflow.output']).to.equal('{"decision":{"by":"alice"}}');
  });

  it('terminates recursively: the sub-workflow is terminated with its parent', async () => {
    const id = 'term-parent';
    await h.startParent(id);
    expect(await h.op(id, 'terminate')).to.deep.equal({ status: 202, body: undefined });
    expect((await h.waitForCompletion(id)).runtimeStatus).to.equal('TERMINATED');
    expect((await h.waitForCompletion(`${id}-child`)).runtimeStatus).to.equal('TERMINATED');
  });

  it('purges recursively: the sub-workflow state goes with its parent', async () => {
    const id = 'purge-parent';
    await h.startParent(id);
    await h.op(`${id}-child`, 'raiseEvent/approval', '"ok"');
    expect((await h.waitForCompletion(id)).properties['svc.workflow.output']).to.equal('{"child":{"decision":"ok"}}');
    expect((await h.op(id, 'purge')).status).to.equal(202);
    expect((await h.request('GET', `/v1.0/workflows/svc/${id}`)).status).to.equal(404);
    expect((await h.request('GET', `/v1.0/workflows/svc/${id}-child`)).status).to.equal(404);
  });

  it('refuses to purge a running instance with 409 and keeps it intact', async () => {
    const id = await h.start('approval', '"keep"', 'purge-live');
    await h.waitForStart(id);
    const res = await h.op(id, 'purge');
    expect(res.status).to.equal(409);
    expect(res.body?.errorCode).to.equal('ERR_PURGE_WORKFLOW_NOT_COMPLETED');
    await h.op(id, 'raiseEvent/approval', '1');
    const done = await h.waitForCompletion(id);
    expect(done.runtimeStatus).to.equal('COMPLETED');
    expect(done.properties['svc.workflow.input']).to.equal('"keep"');
  });

  it('refuses to start over a running instance with 409 and leaves the running one untouched', async () => {
    const id = await h.start('approval', '"first"', 'dup-start');
    await h.waitForStart(id);
    const res = await h.request('POST', `/v1.0/workflows/svc/echo/start?instanceID=${id}`, '"second"');
    expect(res.status).to.equal(409);
    expect(((await res.json()) as { errorCode: string }).errorCode).to.equal('ERR_WORKFLOW_ALREADY_EXISTS');
    const running = await h.get(id);
    expect(running).to.include({ workflowName: 'approval', runtimeStatus: 'RUNNING' });
    expect(running.properties['svc.workflow.input']).to.equal('"first"');
    await h.op(id, 'raiseEvent/approval', '2');
    expect((await h.waitForCompletion(id)).properties['svc.workflow.output']).to.equal('{"decision":2}');
  });

  it('starts a new run over a terminal instance with the same ID', async () => {
    const id = await h.start('echo', '"one"', 'reuse-id');
    await h.waitForCompletion(id);
    await h.start('echo', '"two"', id);
    const second = await h.waitForCompletion(id);
    expect(second.properties['svc.workflow.input']).to.equal('"two"');
    expect(second.properties['svc.workflow.output']).to.equal('"two"');
  });

  it('answers 404 ERR_INSTANCE_ID_NOT_FOUND for an unknown instance on every route', async () => {
    for (const op of ['terminate', 'raiseEvent/approval', 'pause', 'resume', 'purge']) {
      const res = await h.op('never-started', op, op.startsWith('raise') ? '1' : undefined);
      expect(res, op).to.deep.equal({
        status: 404,
        body: { errorCode: 'ERR_INSTANCE_ID_NOT_FOUND', message: 'unable to find workflow with the provided instance ID: never-started' },
      });
    }
    const get = await h.request('GET', '/v1.0/workflows/svc/never-started');
    expect(get.status).to.equal(404);
    expect(await get.json()).to.deep.equal({ errorCode: 'ERR_INSTANCE_ID_NOT_FOUND', message: 'unable to find workflow with the provided instance ID: never-started' });
  });

  it('reports a failed workflow with its failure details and no output', async () => {
    const id = await h.start('failing', undefined, 'fails-1');
    const failed = await h.waitForCompletion(id);
    expect(failed.runtimeStatus).to.equal('FAILED');
    expect(failed.properties['svc.workflow.failure.error_type']).to.be.a('string').and.not.equal('');
    expect(failed.properties['svc.workflow.failure.error_message']).to.include('kaboom');
    expect(failed.properties).to.not.have.property('svc.workflow.output');
  });

  it('watches an instance: ?changedAfter= answers when it changes, or as it is after waitSeconds; bad values are 400', async () => {
    const id = await h.start('approval', undefined, 'watched');
    await h.waitForStart(id);
    const get = async (query = '') => {
      const res = await h.request('GET', `/v1.0/workflows/svc/${id}${query}`);
      return { status: res.status, body: (await res.json()) as { runtimeStatus: string; lastUpdatedAt: string; errorCode?: string } };
    };
    const before = (await get()).body;
    // Nothing happens: the watch answers after its wait with the instance unchanged.
    const startedIdle = Date.now();
    const idle = await get(`?changedAfter=${before.lastUpdatedAt}&waitSeconds=1`);
    expect(idle.status).to.equal(200);
    expect(idle.body.lastUpdatedAt).to.equal(before.lastUpdatedAt);
    expect(Date.now() - startedIdle).to.be.at.least(900);
    // An event completes it: the watch (waiting up to 60 s) answers with the change.
    const watch = get(`?changedAfter=${before.lastUpdatedAt}&waitSeconds=60`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const startedWatch = Date.now();
    expect((await h.op(id, 'raiseEvent/approval', '"yes"')).status).to.equal(202);
    const changed = await watch;
    expect(Date.now() - startedWatch).to.be.below(30_000);
    expect(Date.parse(changed.body.lastUpdatedAt)).to.be.above(Date.parse(before.lastUpdatedAt));
    // A time already passed answers at once.
    expect((await get('?changedAfter=2020-01-01T00:00:00Z')).body.runtimeStatus).to.be.oneOf(['RUNNING', 'COMPLETED']);
    for (const bad of ['?changedAfter=yesterday', `?changedAfter=${before.lastUpdatedAt}&waitSeconds=0`, `?changedAfter=${before.lastUpdatedAt}&waitSeconds=301`]) {
      const res = await get(bad);
      expect(res, bad).to.deep.include({ status: 400 });
      expect(res.body.errorCode).to.equal('ERR_MALFORMED_REQUEST');
    }
    expect((await h.request('GET', '/v1.0/workflows/svc/never-started?changedAfter=2020-01-01T00:00:00Z')).status).to.equal(404);
  });

  it("answers an empty history page for a token at the history's end (where a follower reads next), 400 past it", async () => {
    const id = await h.start('echo', '1', 'history-end');
    await h.waitForCompletion(id);
    const all = (await (await h.request('GET', `/v1.0/workflows/svc/${id}/history`)).json()) as { events: unknown[] };
    const atEnd = await h.request('GET', `/v1.0/workflows/svc/${id}/history?continuationToken=${all.events.length}`);
    expect(atEnd.status).to.equal(200);
    expect(await atEnd.json()).to.deep.equal({ instanceID: id, events: [], continuationToken: null });
    expect((await h.request('GET', `/v1.0/workflows/svc/${id}/history?continuationToken=${all.events.length + 1}`)).status).to.equal(400);
  });
});
