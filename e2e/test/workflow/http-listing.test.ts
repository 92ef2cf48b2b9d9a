import { expect } from 'chai';
import { OrchestrationStatus } from '@dapr/durabletask-js/orchestration/enum/orchestration-status.enum.js';
import { eventually } from '@svc/runtime/test-support';
import type { InstanceListView, InstanceSummaryView } from '@svc/runtime/workflow/management-api.js';
import type { HistoryEventView, HistoryPageView } from '@svc/runtime/workflow/history-view.js';
import { harnessPerSuite, type WorkflowHarness } from './support/harness.js';

/** Runs `fn` over `items`, `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(fn));
}

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);

for (const store of ['sqlite', 'redis', 'postgresql'] as const) {
  describe(`workflow list and history over HTTP (${store})`, function () {
    this.timeout(240_000);
    let h: WorkflowHarness;
    harnessPerSuite({ store }, (started) => (h = started));

    const get = async <T>(path: string): Promise<T> => {
      const res = await h.svcd.request('GET', path);
      expect(res.status, `${path}: ${await res.clone().text()}`).to.equal(200);
      return (await res.json()) as T;
    };
    const list = (query: string) => get<InstanceListView>(`/v1.0/workflows/svc?${query}`);
    /** Every page of a listing; `between` runs after each page. */
    const listAll = async (query: string, between?: () => Promise<unknown>): Promise<InstanceSummaryView[][]> => {
      const pages: InstanceSummaryView[][] = [];
      let token: string | null = null;
      do {
        const page: InstanceListView = await list(`${query}${token !== null ? `&continuationToken=${token}` : ''}`);
        pages.push(page.instances);
        token = page.continuationToken;
        await between?.();
      } while (token !== null);
      return pages;
    };
    const failure = async (method: string, path: string) => {
      const res = await h.svcd.request(method, path);
      return { status: res.status, body: (await res.json()) as { errorCode: string; message: string } };
    };

    const waiting = ids('wait', 1500);
    const done = ids('done', 500);
    let createdBetween: { from: Date; to: Date };

    before(async () => {
      const client = h.client();
      await inParallel(waiting, 50, (id) => client.scheduleNewOrchestration('approval', undefined, id));
      const from = new Date();
      await inParallel(done, 50, (id) => client.scheduleNewOrchestration('echo', id, id));
      createdBetween = { from, to: new Date() };
      // Settled: nothing of these changes while the tests page (a change would move an instance to the front).
      await inParallel(done, 50, (id) => client.waitForOrchestrationCompletion(id, false, 120));
      await inParallel(waiting, 50, (id) => client.waitForOrchestrationStart(id, false, 120));
      await eventually('every waiting instance ran its first turn', async () => (await listAll('status=RUNNING&pageSize=1000')).flat().length === waiting.length, 60_000);
    });

    it('lists 2,000 instances newest update first, each once across pages, while new ones start meanwhile', async () => {
      const client = h.client();
      const late = ids('late', 200);
      let next = 0;
      const pages = await listAll('pageSize=137', () => inParallel(late.slice(next, (next += 10)), 10, (id) => client.scheduleNewOrchestration('echo', 'x', id)));
      await inParallel(late.slice(next), 10, (id) => client.scheduleNewOrchestration('echo', 'x', id));

      const seen = pages.flat();
      expect(new Set(seen.map((i) => i.instanceID)).size, 'no instance twice').to.equal(seen.length);
      const seenIds = new Set(seen.map((i) => i.instanceID));
      expect([...waiting, ...done].filter((id) => !seenIds.has(id)), 'none that existed throughout is skipped').to.deep.equal([]);
      const times = seen.map((i) => Date.parse(i.lastUpdatedAt));
      expect(times.every((t, i) => i === 0 || t <= times[i - 1]!), 'newest update first').to.equal(true);
      expect(pages.slice(0, -1).every((p) => p.length === 137)).to.equal(true);
      const one = seen.find((i) => i.instanceID === 'done-0007')!;
      expect(one).to.include({ workflowName: 'echo', runtimeStatus: 'COMPLETED' });
      expect(Date.parse(one.createdAt)).to.be.at.most(Date.parse(one.lastUpdatedAt));
      for (const id of late) await client.waitForOrchestrationCompletion(id, false, 60);
    });

    it('filters by status, name, creation window and ID prefix, alone and together, with paging', async () => {
      const all = async (query: string) => (await listAll(query)).flat().map((i) => i.instanceID);
      expect((await all('status=RUNNING&pageSize=400')).sort()).to.deep.equal(waiting);
      expect(await all('status=completed,failed&name=approval')).to.deep.equal([]);
      expect((await all('name=approval&pageSize=1000')).sort()).to.deep.equal(waiting);
      expect((await all('instanceIDPrefix=done-01&pageSize=7')).sort()).to.deep.equal(done.filter((id) => id.startsWith('done-01')));
      const window = `createdFrom=${createdBetween.from.toISOString()}&createdTo=${createdBetween.to.toISOString()}`;
      expect((await all(`${window}&pageSize=300`)).sort()).to.deep.equal(done);
      expect((await all(`${window}&status=COMPLETED&status=RUNNING&instanceIDPrefix=done-04&name=echo`)).sort()).to.deep.equal(done.filter((id) => id.startsWith('done-04')));
      expect(await all('createdFrom=2999-01-01')).to.deep.equal([]);
    });

    it('an update moves an instance to the front; a purge takes it out', async () => {
      const client = h.client();
      await client.raiseOrchestrationEvent('wait-0003', 'approval', 'yes');
      await client.waitForOrchestrationCompletion('wait-0003', false, 60);
      const first = (await list('pageSize=1')).instances[0]!;
      expect(first).to.include({ instanceID: 'wait-0003', runtimeStatus: 'COMPLETED' });
      expect((await h.svcd.request('POST', '/v1.0/workflows/svc/wait-0003/purge')).status).to.equal(202);
      expect((await list('instanceIDPrefix=wait-0003')).instances).to.deep.equal([]);
      expect((await listAll('status=RUNNING&pageSize=1000')).flat()).to.have.length(waiting.length - 1);
    });

    it('history: events in order with names, inputs, outputs; large payloads trimmed, whole on request', async () => {
      const client = h.client();
      const big = JSON.stringify('x'.repeat(5000));
      await client.scheduleNewOrchestration('echo', 'x'.repeat(5000), 'hist-big');
      await client.waitForOrchestrationCompletion('hist-big', false, 60);
      const page = await get<HistoryPageView>('/v1.0/workflows/svc/hist-big/history');
      expect(page.instanceID).to.equal('hist-big');
      expect(page.continuationToken).to.equal(null);
      expect(page.events.map((e) => e.type)).to.deep.equal(['OrchestratorStarted', 'ExecutionStarted', 'TimerCreated', 'OrchestratorStarted', 'TimerFired', 'ExecutionCompleted']);
      expect(page.events.map((e) => e.index)).to.deep.equal([0, 1, 2, 3, 4, 5]);
      const started = page.events[1]!;
      expect(started).to.include({ name: 'echo', instanceId: 'hist-big', inputTrimmed: true, inputLength: big.length });
      expect((started.input as string).length).to.equal(1024);
      expect(page.events[2]!.fireAt).to.match(/^\d{4}-\d\d-\d\dT/);
      const completed = page.events[5]!;
      expect(completed).to.include({ status: 'COMPLETED', outputTrimmed: true, outputLength: big.length });

      expect((await get<HistoryEventView>('/v1.0/workflows/svc/hist-big/history/1')).input).to.equal(big);
      const full = await get<HistoryPageView>('/v1.0/workflows/svc/hist-big/history?payloads=full');
      expect(full.events[5]!.output).to.equal(big);
      expect(full.events[5]).to.not.have.property('outputTrimmed');

      const p1 = await get<HistoryPageView>('/v1.0/workflows/svc/hist-big/history?pageSize=4');
      expect(p1.events.map((e) => e.index)).to.deep.equal([0, 1, 2, 3]);
      const p2 = await get<HistoryPageView>(`/v1.0/workflows/svc/hist-big/history?pageSize=4&continuationToken=${p1.continuationToken!}`);
      expect(p2.events.map((e) => e.index)).to.deep.equal([4, 5]);
      expect(p2.continuationToken).to.equal(null);
    });

    it('history of a failed workflow carries the failure; rerun from an activity over HTTP starts a new instance', async () => {
      const client = h.client();
      await client.scheduleNewOrchestration('failing', undefined, 'hist-failed');
      await client.waitForOrchestrationCompletion('hist-failed', false, 60);
      const events = (await get<HistoryPageView>('/v1.0/workflows/svc/hist-failed/history')).events;
      const taskFailed = events.find((e) => e.type === 'TaskFailed')!;
      expect(taskFailed.failure).to.deep.include({ errorMessage: 'kaboom' });
      const scheduled = events.find((e) => e.type === 'TaskScheduled')!;
      expect(scheduled).to.include({ name: 'explode' });
      expect(events.at(-1)).to.deep.include({ type: 'ExecutionCompleted', status: 'FAILED' });

      const res = await h.svcd.request('POST', `/v1.0/workflows/svc/hist-failed/rerun/${scheduled.eventId}?newInstanceID=hist-rerun`);
      expect(res.status).to.equal(202);
      expect(await res.json()).to.deep.equal({ instanceID: 'hist-rerun' });
      const rerun = await client.waitForOrchestrationCompletion('hist-rerun', false, 60);
      expect(rerun?.runtimeStatus).to.equal(OrchestrationStatus.FAILED);
      const rerunEvents = (await get<HistoryPageView>('/v1.0/workflows/svc/hist-rerun/history')).events;
      expect(rerunEvents.filter((e) => e.type === 'TaskScheduled')).to.have.length(1);
      expect(rerunEvents.filter((e) => e.type === 'TaskFailed'), 'the activity ran again').to.have.length(1);
    });

    /** Every page of an instance's history at `pageSize`, and the token each page answered. */
    const historyPages = async (id: string, pageSize: number): Promise<{ events: HistoryEventView[]; tokens: (string | null)[] }> => {
      const events: HistoryEventView[] = [];
      const tokens: (string | null)[] = [];
      let token: string | null = null;
      do {
        const page: HistoryPageView = await get<HistoryPageView>(`/v1.0/workflows/svc/${id}/history?pageSize=${pageSize}${token !== null ? `&continuationToken=${token}` : ''}`);
        events.push(...page.events);
        tokens.push((token = page.continuationToken));
      } while (token !== null);
      return { events, tokens };
    };
    const customStatus = async (id: string, status: string) =>
      eventually(`${id} says ${status}`, async () => (await h.client().getOrchestrationState(id, true))?.serializedCustomStatus === status, 60_000);
    /** The chapter a run's TaskScheduled events were told (`chapters` workflow), one entry per distinct value. */
    const chaptersOf = (events: readonly HistoryEventView[]) => [...new Set(events.filter((e) => e.type === 'TaskScheduled').map((e) => (JSON.parse(e.input as string) as { chapter: number }).chapter))];

    it('history pages read only their range: every page of a 300-event history in order, active and after it finished, tokens, the last page, one event, 404', async () => {
      const client = h.client();
      await client.scheduleNewOrchestration('chapters', 150, 'hist-pages');
      await customStatus('hist-pages', 'waiting-150');
      const active = await historyPages('hist-pages', 64);
      const n = active.events.length;
      expect(active.events.map((e) => e.index)).to.deep.equal([...Array(n).keys()]);
      expect(active.tokens).to.deep.equal([...Array.from({ length: Math.ceil(n / 64) - 1 }, (_, i) => String(64 * (i + 1))), null]);
      expect(new Set(active.events.filter((e) => e.type === 'TaskScheduled').map((e) => e.eventId)).size).to.equal(150);
      expect(active.events.filter((e) => e.type === 'TaskCompleted')).to.have.length(150);
      expect(active.events[1]).to.include({ type: 'ExecutionStarted', input: '150' });

      // Finished, the instance is out of memory: the same pages come from the store, its terminate events after them.
      await client.terminateOrchestration('hist-pages', 'stop');
      await client.waitForOrchestrationCompletion('hist-pages', false, 60);
      const finished = await historyPages('hist-pages', 64);
      expect(finished.events.slice(0, n)).to.deep.equal(active.events);
      expect(finished.events.at(-1)).to.include({ type: 'ExecutionCompleted', status: 'TERMINATED', index: finished.events.length - 1 });
      const total = finished.events.length;
      const last = await get<HistoryPageView>(`/v1.0/workflows/svc/hist-pages/history?pageSize=10&continuationToken=${total - 3}`);
      expect([last.events.map((e) => e.index), last.continuationToken]).to.deep.equal([[total - 3, total - 2, total - 1], null]);
      expect(await get<HistoryPageView>(`/v1.0/workflows/svc/hist-pages/history?continuationToken=${total}`)).to.deep.equal({ instanceID: 'hist-pages', events: [], continuationToken: null });
      expect((await failure('GET', `/v1.0/workflows/svc/hist-pages/history?continuationToken=${total + 1}`)).status).to.equal(400);
      expect(await get<HistoryEventView>('/v1.0/workflows/svc/hist-pages/history/1')).to.deep.equal(finished.events[1]);
      expect(await get<HistoryEventView>(`/v1.0/workflows/svc/hist-pages/history/${total - 1}`)).to.deep.equal(finished.events.at(-1));
      for (const path of ['history', 'history/0', 'history?continuationToken=5']) {
        const unknown = await failure('GET', `/v1.0/workflows/svc/hist-never/${path}`);
        expect([unknown.status, unknown.body.errorCode], path).to.deep.equal([404, 'ERR_INSTANCE_ID_NOT_FOUND']);
      }
    });

    it('a token reads the current run: continued as new between pages, the next page is the new run from there, never a mixed page', async () => {
      const client = h.client();
      await client.scheduleNewOrchestration('chapters', 40, 'hist-can');
      await customStatus('hist-can', 'waiting-40');
      const first = await get<HistoryPageView>('/v1.0/workflows/svc/hist-can/history?pageSize=30');
      expect([first.continuationToken, chaptersOf(first.events)]).to.deep.equal(['30', [40]]);

      await client.raiseOrchestrationEvent('hist-can', 'next', 45);
      await customStatus('hist-can', 'waiting-45');
      const next = await get<HistoryPageView>('/v1.0/workflows/svc/hist-can/history?pageSize=30&continuationToken=30');
      const run = await historyPages('hist-can', 5000);
      expect(run.events[1]).to.include({ type: 'ExecutionStarted', input: '45' });
      expect(next.events).to.deep.equal(run.events.slice(30, 60));
      expect(chaptersOf(next.events)).to.deep.equal([45]);

      await client.raiseOrchestrationEvent('hist-can', 'next', 2);
      await customStatus('hist-can', 'waiting-2');
      const past = await failure('GET', '/v1.0/workflows/svc/hist-can/history?pageSize=30&continuationToken=30');
      expect([past.status, past.body.errorCode], 'the new run is shorter than the token').to.deep.equal([400, 'ERR_MALFORMED_REQUEST']);

      // Pages read while the instance continues as new run after run: each page is of one run (a run's first
      // page may hold no TaskScheduled yet).
      let moving = true;
      const reading = (async () => {
        const runs: number[][] = [];
        while (moving) {
          const events = (await get<HistoryPageView>('/v1.0/workflows/svc/hist-can/history?pageSize=5000')).events;
          const started = events.find((e) => e.type === 'ExecutionStarted');
          runs.push([...new Set([...chaptersOf(events), ...(started ? [Number(started.input)] : [])])]);
        }
        return runs;
      })();
      for (const count of [30, 31, 32, 33, 34]) {
        await client.raiseOrchestrationEvent('hist-can', 'next', count);
        await customStatus('hist-can', `waiting-${count}`);
      }
      moving = false;
      const runs = await reading;
      expect(runs.length).to.be.greaterThan(5);
      for (const seen of runs) expect(seen, 'the runs one page shows').to.have.length.at.most(1);
    });

    it('bad input: each a 400/404 with a code and a message, nothing listed wider', async () => {
      const cases: [string, string, number, string][] = [
        ['GET', '/v1.0/workflows/svc?statu=RUNNING', 400, 'ERR_MALFORMED_REQUEST'],
        ['GET', '/v1.0/workflows/svc?status=SLEEPING', 400, 'ERR_MALFORMED_REQUEST'],
        ['GET', '/v1.0/workflows/svc?createdFrom=yesterday', 400, 'ERR_MALFORMED_REQUEST'],
        ['GET', '/v1.0/workflows/svc?pageSize=0', 400, 'ERR_MALFORMED_REQUEST'],
        ['GET', '/v1.0/workflows/svc?pageSize=ten', 400, 'ERR_MALFORMED_REQUEST'],
        ['GET', '/v1.0/workflows/svc?name=a&name=b', 400, 'ERR_MALFORMED_REQUEST'],
        ['GET', `/v1.0/workflows/svc?continuationToken=${Buffer.from('wait-0001').toString('base64url')}`, 400, 'ERR_MALFORMED_REQUEST'],
        ['GET', '/v1.0/workflows/svc?continuationToken=%25%25', 400, 'ERR_MALFORMED_REQUEST'],
        ['GET', '/v1.0/workflows/nope', 400, 'ERR_WORKFLOW_COMPONENT_NOT_FOUND'],
        ['GET', '/v1.0/workflows/svc/never-started/history', 404, 'ERR_INSTANCE_ID_NOT_FOUND'],
        ['GET', '/v1.0/workflows/svc/bad%20id/history', 400, 'ERR_INSTANCE_ID_INVALID'],
        ['GET', '/v1.0/workflows/svc/hist-big/history/99', 400, 'ERR_MALFORMED_REQUEST'],
        ['GET', '/v1.0/workflows/svc/hist-big/history/-1', 400, 'ERR_MALFORMED_REQUEST'],
        ['GET', '/v1.0/workflows/svc/hist-big/history?payloads=some', 400, 'ERR_MALFORMED_REQUEST'],
        // hist-big has 6 events: a token of 6 is where a follower reads next (an empty page); past it is a 400.
        ['GET', '/v1.0/workflows/svc/hist-big/history?continuationToken=7', 400, 'ERR_MALFORMED_REQUEST'],
        ['POST', '/v1.0/workflows/svc/hist-big/rerun/x', 400, 'ERR_RERUN_EVENT_INVALID'],
        ['POST', '/v1.0/workflows/svc/hist-big/rerun/77', 400, 'ERR_RERUN_EVENT_INVALID'],
        ['POST', '/v1.0/workflows/svc/wait-0001/rerun/0', 409, 'ERR_RERUN_WORKFLOW_NOT_COMPLETED'],
        ['POST', '/v1.0/workflows/svc/never-started/rerun/0', 404, 'ERR_INSTANCE_ID_NOT_FOUND'],
        ['POST', '/v1.0/workflows/svc/hist-big/rerun/0?newInstanceID=a%20b', 400, 'ERR_INSTANCE_ID_INVALID'],
      ];
      for (const [method, path, status, code] of cases) {
        const got = await failure(method, path);
        expect([got.status, got.body.errorCode], `${method} ${path}: ${got.body.message}`).to.deep.equal([status, code]);
        expect(got.body.message).to.be.a('string').and.not.equal('');
      }
      expect((await h.svcd.request('GET', '/v1.0/healthz')).status).to.equal(204);
    });
  });
}
