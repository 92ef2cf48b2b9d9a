import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpApp } from '../../src/api/http/app.js';
import { pino } from 'pino';
import { WORKFLOW_API_VERSIONS, workflowHttpRoutes } from '../../src/api/http/routes/workflows.js';
import { WorkflowManagementApi } from '../../src/workflow/management-api.js';
import { FakeWorkflowEngine } from '../workflow/fake-engine.js';

const LIMIT = 1024;

describe('workflow HTTP routes (unit, fake engine)', () => {
  let engine: FakeWorkflowEngine;
  let server: http.Server;
  let base: string;

  beforeEach(async () => {
    engine = new FakeWorkflowEngine();
    const handler = createHttpApp({
      apiToken: undefined,
      // Silent: the 500 cases would log errors that are expected here.
      log: pino({ level: 'silent' }),
      groups: [workflowHttpRoutes({ api: new WorkflowManagementApi(engine), maxBodyBytes: LIMIT })],
    });
    server = http.createServer(handler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  const call = (method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(base + path, { method, body, headers });

  async function expectError(res: Response, status: number, code: string): Promise<void> {
    const text = await res.text();
    expect(res.status, text).to.equal(status);
    expect(JSON.parse(text)).to.have.property('errorCode', code);
  }

  it('answers start under every version prefix and both component names', async () => {
    let n = 0;
    for (const version of WORKFLOW_API_VERSIONS) {
      for (const component of ['svc', 'dapr']) {
        const id = `wf-${n++}`;
        const res = await call('POST', `/${version}/workflows/${component}/order/start?instanceID=${id}`, '{"a":1}');
        expect(res.status).to.equal(202);
        expect(await res.json()).to.deep.equal({ instanceID: id });
        const get = await call('GET', `/${version}/workflows/${component}/${id}`);
        expect(get.status).to.equal(200);
      }
    }
    expect(engine.instances.size).to.equal(6);
  });

  it('passes the start body through byte-for-byte, generates an ID when absent, and stores no input for an empty body', async () => {
    const body = '  {"b": [1, 2]}  \n\tnot-json-after ✓';
    const res = await call('POST', '/v1.0/workflows/svc/order/start', body, { 'content-type': 'text/plain' });
    expect(res.status).to.equal(202);
    const { instanceID } = (await res.json()) as { instanceID: string };
    expect(instanceID).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(engine.instances.get(instanceID)?.input).to.equal(body);

    await call('POST', '/v1.0/workflows/svc/order/start?instanceID=empty-body');
    expect(engine.instances.get('empty-body')).to.include({ name: 'order', input: undefined });
  });

  it('renders Get with RFC 3339 UTC timestamps and svc.workflow.* properties', async () => {
    const created = new Date('2026-01-02T03:04:05.123Z');
    engine.instances.set('done', {
      instanceId: 'done', name: 'order', runtimeStatus: 'COMPLETED', createdAt: created, lastUpdatedAt: new Date('2026-01-02T03:04:06Z'),
      input: '{"x":1}', output: '"ok"', customStatus: 'shipped',
    });
    engine.instances.set('failed', {
      instanceId: 'failed', name: 'order', runtimeStatus: 'FAILED', createdAt: created, lastUpdatedAt: created,
      output: 'never shown', failureDetails: { errorType: 'Error', errorMessage: 'boom', stackTrace: 'at x' },
    });
    const done = await (await call('GET', '/v1.0/workflows/svc/done')).json();
    expect(done).to.deep.equal({
      instanceID: 'done', workflowName: 'order', createdAt: '2026-01-02T03:04:05.123Z', lastUpdatedAt: '2026-01-02T03:04:06.000Z',
      runtimeStatus: 'COMPLETED',
      properties: { 'svc.workflow.input': '{"x":1}', 'svc.workflow.output': '"ok"', 'svc.workflow.custom_status': 'shipped' },
    });
    const failed = (await (await call('GET', '/v1.0/workflows/svc/failed')).json()) as { properties: Record<string, string> };
    expect(failed.properties).to.deep.equal({
      'svc.workflow.failure.error_type': 'Error', 'svc.workflow.failure.error_message': 'boom', 'svc.workflow.failure.stack_trace': 'at x',
    });
    // Dapr clients read dapr.workflow.*: the `dapr` alias answers with those names.
    const viaDapr = (await (await call('GET', '/v1.0-beta1/workflows/dapr/done')).json()) as { properties: Record<string, string> };
    expect(viaDapr.properties).to.deep.equal({ 'dapr.workflow.input': '{"x":1}', 'dapr.workflow.output': '"ok"', 'dapr.workflow.custom_status': 'shipped' });
  });

  it('drives terminate, raiseEvent, pause, resume and purge with 202 and an empty body', async () => {
    await call('POST', '/v1.0/workflows/svc/order/start?instanceID=w1');
    engine.instances.get('w1')!.runtimeStatus = 'RUNNING';
    const post = async (suffix: string, body?: string) => {
      const res = await call('POST', `/v1.0/workflows/svc/w1/${suffix}`, body);
      expect(res.status, suffix).to.equal(202);
      expect(await res.text()).to.equal('');
    };
    await post('raiseEvent/Approval', 'true');
    expect(engine.events).to.deep.equal([{ instanceId: 'w1', name: 'Approval', data: 'true' }]);
    await post('pause');
    expect(engine.instances.get('w1')?.runtimeStatus).to.equal('SUSPENDED');
    await post('resume');
    expect(engine.instances.get('w1')?.runtimeStatus).to.equal('RUNNING');
    await post('terminate');
    expect(engine.instances.get('w1')?.runtimeStatus).to.equal('TERMINATED');
    await post('purge');
    expect(engine.instances.has('w1')).to.equal(false);
  });

  it('list: the query becomes the engine request (statuses in any case, either form; times as epoch ms)', async () => {
    const res = await call('GET', '/v1.0/workflows/svc?status=running,Failed&status=SUSPENDED&name=order&createdFrom=2026-01-02&createdTo=2026-01-03T04:05:06.007Z&instanceIDPrefix=ord&pageSize=5&continuationToken=abc');
    expect(res.status).to.equal(200);
    expect(engine.listRequests).to.deep.equal([
      {
        filter: { statuses: ['RUNNING', 'FAILED', 'SUSPENDED'], name: 'order', createdFrom: Date.UTC(2026, 0, 2), createdTo: Date.UTC(2026, 0, 3, 4, 5, 6, 7), instanceIdPrefix: 'ord' },
        pageSize: 5,
        continuationToken: 'abc',
      },
    ]);
    await call('GET', '/v1.0/workflows/svc?name=&instanceIDPrefix=');
    expect(engine.listRequests[1]).to.deep.equal({ filter: {} });
  });

  describe('bad input never reaches the engine', () => {
    const instanceRoutes = (id: string) => [
      ['GET', `/v1.0/workflows/svc/${id}`],
      ['GET', `/v1.0/workflows/svc/${id}/waiting`],
      ['POST', `/v1.0/workflows/svc/${id}/terminate`],
      ['POST', `/v1.0/workflows/svc/${id}/raiseEvent/go`],
      ['POST', `/v1.0/workflows/svc/${id}/pause`],
      ['POST', `/v1.0/workflows/svc/${id}/resume`],
      ['POST', `/v1.0/workflows/svc/${id}/purge`],
    ] as const;
    const startRoute = (id: string) => ['POST', `/v1.0/workflows/svc/order/start?instanceID=${id}`] as const;
    const routes = (id: string) => [...instanceRoutes(id), startRoute(id)];

    const cases: [string, string, string][] = [
      ['a character outside [A-Za-z0-9_-]', 'bad%24id', 'ERR_INSTANCE_ID_INVALID'],
      ['a dot', 'a.b', 'ERR_INSTANCE_ID_INVALID'],
      ['a space', 'a%20b', 'ERR_INSTANCE_ID_INVALID'],
      ['a non-ASCII letter', '%C3%A9t%C3%A9', 'ERR_INSTANCE_ID_INVALID'],
      ['a colon segment outside [A-Za-z0-9_-]', 'parent%3A00.1', 'ERR_INSTANCE_ID_INVALID'],
      ['an empty colon segment', 'parent%3A%3A0001', 'ERR_INSTANCE_ID_INVALID'],
      ['a leading colon', '%3A0001', 'ERR_INSTANCE_ID_INVALID'],
      ['a trailing colon', 'parent%3A', 'ERR_INSTANCE_ID_INVALID'],
      ['257 characters', 'a'.repeat(257), 'ERR_INSTANCE_ID_TOO_LONG'],
    ];
    for (const [what, id, code] of cases) {
      it(`rejects an instance ID with ${what} on every route (400 ${code})`, async () => {
        for (const [method, path] of routes(id)) await expectError(await call(method, path), 400, code);
        expect(engine.calls).to.deep.equal([]);
      });
    }

    it('rejects on start what only the engine may create: a colon (SDK child IDs) or over 64 characters', async () => {
      await expectError(await call(...startRoute('parent%3A0001')), 400, 'ERR_INSTANCE_ID_INVALID');
      await expectError(await call(...startRoute('parent:0001')), 400, 'ERR_INSTANCE_ID_INVALID');
      await expectError(await call(...startRoute('a'.repeat(65))), 400, 'ERR_INSTANCE_ID_TOO_LONG');
      expect(engine.calls).to.deep.equal([]);
    });

    it('accepts sub-workflow IDs (colon-joined segments, up to 256 characters) on every route but start', async () => {
      const deep = 'r'.repeat(66) + ':0001'.repeat(38); // 256 characters: 38 nesting levels
      for (const id of ['parent%3A0001', 'parent:0001', 'p:0001:000a', deep]) {
        for (const [method, path] of instanceRoutes(id)) {
          // The fake engine knows no such instance: 404 proves the ID passed validation and reached the engine.
          await expectError(await call(method, path), 404, 'ERR_INSTANCE_ID_NOT_FOUND');
        }
      }
    });

    it('accepts exactly 64 characters', async () => {
      const id = 'A-_9'.repeat(16);
      expect((await call('POST', `/v1.0/workflows/svc/order/start?instanceID=${id}`)).status).to.equal(202);
    });

    it('rejects an empty instance ID on every route (400 ERR_INSTANCE_ID_PROVIDED_MISSING)', async () => {
      for (const [method, path] of routes('')) {
        await expectError(await call(method, path), 400, 'ERR_INSTANCE_ID_PROVIDED_MISSING');
      }
      expect(engine.calls).to.deep.equal([]);
    });

    it('rejects an unknown component name (400 ERR_WORKFLOW_COMPONENT_NOT_FOUND), also on malformed paths', async () => {
      for (const path of ['/v1.0/workflows/temporal/order/start', '/v1.0/workflows/Svc/x', '/v1.0-beta1/workflows/other/x/purge', '/v1.0/workflows/other/']) {
        const method = path.endsWith('/x') ? 'GET' : 'POST';
        await expectError(await call(method, path), 400, 'ERR_WORKFLOW_COMPONENT_NOT_FOUND');
      }
      expect(engine.calls).to.deep.equal([]);
    });

    it('rejects a missing event name and unknown sub-paths with 400', async () => {
      await expectError(await call('POST', '/v1.0/workflows/svc/w1/raiseEvent/'), 400, 'ERR_WORKFLOW_EVENT_NAME_MISSING');
      await expectError(await call('POST', '/v1.0/workflows/svc/w1/raiseEvent'), 400, 'ERR_WORKFLOW_EVENT_NAME_MISSING');
      await expectError(await call('POST', '/v1.0/workflows/svc/w1/rewind'), 400, 'ERR_MALFORMED_REQUEST');
      await expectError(await call('DELETE', '/v1.0/workflows/svc/w1'), 400, 'ERR_MALFORMED_REQUEST');
      await expectError(await call('GET', '/v1.0/workflows'), 400, 'ERR_MALFORMED_REQUEST');
      await expectError(await call('POST', '/v1.0/workflows/svc/order/start?instanceID=a&instanceID=b'), 400, 'ERR_MALFORMED_REQUEST');
      expect(engine.calls).to.deep.equal([]);
    });

    it('refuses a body over the limit with 413 and a body that is not UTF-8 with 400', async () => {
      await expectError(await call('POST', '/v1.0/workflows/svc/order/start?instanceID=big', 'x'.repeat(LIMIT + 1)), 413, 'ERR_BODY_TOO_LARGE');
      await expectError(await call('POST', '/v1.0/workflows/svc/order/start?instanceID=bin', Buffer.from([0xff, 0xfe, 0x00])), 400, 'ERR_MALFORMED_REQUEST');
      expect(engine.instances.size).to.equal(0);
      const exact = 'y'.repeat(LIMIT);
      expect((await call('POST', '/v1.0/workflows/svc/order/start?instanceID=fits', exact)).status).to.equal(202);
      expect(engine.instances.get('fits')?.input).to.equal(exact);
    });
  });

  it('answers 404 ERR_INSTANCE_ID_NOT_FOUND for an unknown instance on every instance route', async () => {
    for (const suffix of ['', '/waiting', '/terminate', '/raiseEvent/go', '/pause', '/resume', '/purge']) {
      await expectError(await call(['', '/waiting'].includes(suffix) ? 'GET' : 'POST', `/v1.0/workflows/svc/nope${suffix}`), 404, 'ERR_INSTANCE_ID_NOT_FOUND');
    }
  });

  it('refuses to purge a non-terminal instance with 409 and deletes nothing', async () => {
    await call('POST', '/v1.0/workflows/svc/order/start?instanceID=live');
    await expectError(await call('POST', '/v1.0/workflows/svc/live/purge'), 409, 'ERR_PURGE_WORKFLOW_NOT_COMPLETED');
    expect(engine.instances.has('live')).to.equal(true);
  });

  it('refuses to start over a running instance with 409 and leaves it untouched', async () => {
    await call('POST', '/v1.0/workflows/svc/order/start?instanceID=dup', '"first"');
    await expectError(await call('POST', '/v1.0/workflows/svc/order/start?instanceID=dup', '"second"'), 409, 'ERR_WORKFLOW_ALREADY_EXISTS');
    expect(engine.instances.get('dup')?.input).to.equal('"first"');
  });

  it('maps an engine failure without a code to 500 with the operation code', async () => {
    engine.failWith = new Error('disk on fire');
    const expected: [string, string, string][] = [
      ['POST', '/v1.0/workflows/svc/order/start?instanceID=x', 'ERR_START_WORKFLOW'],
      ['GET', '/v1.0/workflows/svc/x', 'ERR_GET_WORKFLOW'],
      ['GET', '/v1.0/workflows/svc/x/waiting', 'ERR_GET_WORKFLOW'],
      ['POST', '/v1.0/workflows/svc/x/terminate', 'ERR_TERMINATE_WORKFLOW'],
      ['POST', '/v1.0/workflows/svc/x/raiseEvent/e', 'ERR_RAISE_EVENT_WORKFLOW'],
      ['POST', '/v1.0/workflows/svc/x/pause', 'ERR_PAUSE_WORKFLOW'],
      ['POST', '/v1.0/workflows/svc/x/resume', 'ERR_RESUME_WORKFLOW'],
      ['POST', '/v1.0/workflows/svc/x/purge', 'ERR_PURGE_WORKFLOW'],
    ];
    for (const [method, path, code] of expected) {
      const res = await call(method, path);
      const body = (await res.json()) as { errorCode: string; message: string };
      expect(res.status, path).to.equal(500);
      expect(body.errorCode, path).to.equal(code);
      expect(body.message).to.include('disk on fire');
    }
  });
});
