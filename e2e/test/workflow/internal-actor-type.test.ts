/**
 * The workflow engine's own actor type is out of reach of the public actor API, and corrupt stored metadata
 * fails its one instance without stalling svcd (issue: "internal actors sealed").
 */
import Database from 'better-sqlite3';
import { expect } from 'chai';
import path from 'node:path';
import { harnessPerSuite, type WorkflowHarness } from './support/harness.js';

describe('workflow engine actors: sealed from the public actor API (real svcd, SQLite)', function () {
  this.timeout(60_000);
  let h: WorkflowHarness;
  harnessPerSuite({ store: 'sqlite' }, (started) => (h = started));

  const internalType = () => `svc.internal.${h.store.appId}.workflow`;

  /** Every public actor route, with bodies that would read, forge or break an instance if they got through. */
  function everyActorRoute(type: string, id: string): [string, string, unknown?][] {
    const base = `/v1.0/actors/${type}/${id}`;
    const forged = { plan: { generation: 1, historyLength: 0, seqs: [] }, actions: [{ id: 1, type: 'CompleteOrchestration', status: 'COMPLETED', result: '"forged"' }] };
    return [
      ['GET', `${base}/method/get`],
      ['POST', `${base}/method/history`],
      ['PUT', `${base}/method/complete`, forged],
      ['DELETE', `${base}/method/purge`],
      ['GET', `${base}/state/metadata`],
      ['POST', `${base}/state`, [{ operation: 'upsert', request: { key: 'metadata', value: { historyLength: 1e12 } } }]],
      ['PUT', `${base}/reminders/run`, { dueTime: '0s' }],
      ['POST', `${base}/reminders/run`, { dueTime: '0s' }],
      ['GET', `${base}/reminders/run`],
      ['DELETE', `${base}/reminders/run`],
      ['PUT', `${base}/timers/t1`, { dueTime: '0s', callback: 'complete' }],
      ['DELETE', `${base}/timers/t1`],
    ];
  }

  it('answers every public actor route on the internal type as for a type not hosted, and the instance runs on unharmed', async () => {
    const id = 'sealed-1';
    await h.start('approval', undefined, id);
    expect((await h.waitForStart(id)).runtimeStatus).to.equal('RUNNING');
    for (const [[method, route, body], [, unhostedRoute]] of everyActorRoute(internalType(), id).map((r, i) => [r, everyActorRoute('nosuchtype', id)[i]!] as const)) {
      const res = await h.svcd.request(method, route, body === undefined ? undefined : JSON.stringify(body));
      const unhosted = await h.svcd.request(method, unhostedRoute, body === undefined ? undefined : JSON.stringify(body));
      const [text, unhostedText] = [await res.text(), await unhosted.text()];
      expect(res.status, `${method} ${route}: ${text}`).to.equal(400);
      expect(unhosted.status, `${method} ${unhostedRoute}: ${unhostedText}`).to.equal(400);
      const [got, reference] = [JSON.parse(text) as { errorCode: string; message: string }, JSON.parse(unhostedText) as { errorCode: string }];
      expect(got.errorCode, `${method} ${route}`).to.equal(reference.errorCode);
      expect(got.message).to.include('is not registered');
    }
    // Nothing reached the instance: still waiting, then completed by the real event with the real payload.
    expect((await h.get(id)).properties['svc.workflow.custom_status']).to.equal('waiting-for-approval');
    expect((await h.op(id, 'raiseEvent/approval', '"yes"')).status).to.equal(202);
    const done = await h.waitForCompletion(id);
    expect(done.runtimeStatus).to.equal('COMPLETED');
    expect(done.properties['svc.workflow.output']).to.equal('{"decision":"yes"}');
  });

  it('fails an instance whose stored metadata is corrupt with ERR_WORKFLOW_STATE_CORRUPT, at once, while svcd and other instances go on', async () => {
    const ids = ['corrupt-huge-history', 'corrupt-huge-inbox', 'corrupt-not-json', 'corrupt-wrong-types'];
    for (const id of ids) await h.start('echo', '"x"', id);
    for (const id of ids) expect((await h.waitForCompletion(id)).runtimeStatus).to.equal('COMPLETED');
    // Written behind svcd's back, as a damaged disk or another process could (finished instances are not in memory).
    // Before the check, the forged counts held svcd's event loop (a key per history event or inbox number).
    const db = new Database(path.join(h.svcd.dataDir, 'wfstore.db'));
    const key = (id: string) => `${h.store.appId}||${internalType()}||${id}||metadata`;
    const stored = (id: string) => JSON.parse((db.prepare('SELECT value FROM state WHERE key = ?').pluck().get(key(id)) as Buffer).toString()) as Record<string, unknown>;
    const write = (id: string, value: string) => db.prepare('UPDATE state SET value = ? WHERE key = ?').run(Buffer.from(value), key(id));
    write('corrupt-huge-history', JSON.stringify({ ...stored('corrupt-huge-history'), historyLength: 1e12 }));
    write('corrupt-huge-inbox', JSON.stringify({ ...stored('corrupt-huge-inbox'), inboxRanges: [[0, 1e12]] }));
    write('corrupt-not-json', '{"version":');
    write('corrupt-wrong-types', JSON.stringify({ ...stored('corrupt-wrong-types'), historyLength: 'many', name: 7 }));
    db.close();
    for (const id of ids) {
      const res = await h.svcd.request('GET', `/v1.0/workflows/svc/${id}`);
      const body = (await res.json()) as { errorCode: string; message: string };
      expect(res.status, id).to.equal(500);
      expect(body.errorCode, id).to.equal('ERR_WORKFLOW_STATE_CORRUPT');
      expect(body.message).to.include(id).and.include('corrupt');
    }
    expect((await h.svcd.request('GET', '/v1.0/healthz')).status).to.equal(204);
    await h.start('echo', '"still fine"', 'after-corrupt');
    expect((await h.waitForCompletion('after-corrupt')).properties['svc.workflow.output']).to.equal('"still fine"');
  });
});
