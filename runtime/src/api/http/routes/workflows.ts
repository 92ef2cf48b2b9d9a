import type Router from '@koa/router';
import type { Context } from 'koa';
import { RuntimeError } from '../../../errors/runtime-error.js';
import type { HttpRouteGroup } from '../app.js';
import { readRawBody } from '../body.js';
import { checkWorkflowComponent } from '../../../workflow/management-input.js';
import { checkExistingInstanceId } from '../../../workflow/instance-id.js';
import { listInstancesRequest, pageSize, single, time, type Query } from './workflow-list-query.js';
import type { WorkflowManagementApi } from '../../../workflow/management-api.js';
import { answerJson } from '../json-answer.js';

/** `/v1.0` is the documented prefix; the other two keep `@dapr/dapr` clients and older scripts working. */
export const WORKFLOW_API_VERSIONS: readonly string[] = ['v1.0', 'v1.0-beta1', 'v1.0-alpha1'];

export interface WorkflowHttpOptions {
  readonly api: WorkflowManagementApi;
  /** Largest accepted start input / event payload (`--max-request-size`); larger bodies get 413. */
  readonly maxBodyBytes: number;
}

type Run = (ctx: Context, api: WorkflowManagementApi, maxBodyBytes: number) => Promise<void>;

function param(ctx: Context, name: string): string {
  return (ctx.params as Record<string, string | undefined>)[name] ?? '';
}

/** 202 with an empty body ("Response body: none"); Koa would otherwise send the text "Accepted". */
function accepted(ctx: Context): void {
  ctx.status = 202;
  ctx.body = '';
}

/** The `instanceID` query parameter of a start call (checked by the API), or undefined for a new UUID. */
function requestedInstanceId(ctx: Context, name = 'instanceID'): string | undefined {
  const given = ctx.query[name];
  if (Array.isArray(given)) throw new RuntimeError('ERR_MALFORMED_REQUEST', `the ${name} query parameter was given more than once`);
  return given;
}

const DEFAULT_WATCH_SECONDS = 30;
const MAX_WATCH_SECONDS = 300;

/** `?waitSeconds=` of a watch: 1 to 300, default 30. */
function waitSeconds(query: Query): number {
  const v = single(query, 'waitSeconds');
  if (v === undefined) return DEFAULT_WATCH_SECONDS;
  if (!/^\d{1,3}$/.test(v) || Number(v) < 1 || Number(v) > MAX_WATCH_SECONDS) {
    throw new RuntimeError('ERR_MALFORMED_REQUEST', `waitSeconds '${v.slice(0, 40)}' must be a whole number of seconds from 1 to ${MAX_WATCH_SECONDS}`);
  }
  return Number(v);
}

/** `POST .../<id>/<operation>`: one call on the instance, answered with 202 and no body. */
const instanceCommand =
  (call: (api: WorkflowManagementApi, component: string, instanceId: string) => Promise<void>): Run =>
  async (ctx, api) => {
    await call(api, param(ctx, 'component'), param(ctx, 'instanceId'));
    accepted(ctx);
  };

const ROUTES: readonly { method: 'get' | 'post'; path: string; run: Run }[] = [
  {
    method: 'get',
    path: '/:component',
    async run(ctx, api) {
      // `…/svc/` is a get with an empty instance ID (the router ignores the trailing slash), not the list.
      if (ctx.path.endsWith('/')) checkExistingInstanceId('');
      answerJson(ctx, await api.list(param(ctx, 'component'), listInstancesRequest(ctx.query)));
    },
  },
  {
    method: 'get',
    path: '/:component/:instanceId/history',
    async run(ctx, api) {
      const payloads = single(ctx.query, 'payloads');
      if (payloads !== undefined && payloads !== 'full' && payloads !== 'trimmed') throw new RuntimeError('ERR_MALFORMED_REQUEST', `payloads must be 'full' or 'trimmed' (got '${payloads.slice(0, 40)}')`);
      const size = pageSize(ctx.query);
      const token = single(ctx.query, 'continuationToken');
      answerJson(ctx, await api.history(param(ctx, 'component'), param(ctx, 'instanceId'), {
        whole: payloads === 'full',
        ...(size !== undefined ? { pageSize: size } : {}),
        ...(token !== undefined && token !== '' ? { continuationToken: token } : {}),
      }));
    },
  },
  {
    method: 'get',
    path: '/:component/:instanceId/waiting',
    async run(ctx, api) {
      answerJson(ctx, await api.waiting(param(ctx, 'component'), param(ctx, 'instanceId')));
    },
  },
  {
    method: 'get',
    path: '/:component/:instanceId/history/:index',
    async run(ctx, api) {
      answerJson(ctx, await api.historyEvent(param(ctx, 'component'), param(ctx, 'instanceId'), param(ctx, 'index')));
    },
  },
  {
    method: 'post',
    path: '/:component/:instanceId/rerun/:eventId',
    async run(ctx, api, maxBodyBytes) {
      checkWorkflowComponent(param(ctx, 'component'));
      checkExistingInstanceId(param(ctx, 'instanceId'));
      const newInstanceId = requestedInstanceId(ctx, 'newInstanceID');
      const input = await readRawBody(ctx, maxBodyBytes);
      ctx.status = 202;
      answerJson(ctx, { instanceID: await api.rerun(param(ctx, 'component'), param(ctx, 'instanceId'), param(ctx, 'eventId'), newInstanceId, input) });
    },
  },
  {
    method: 'post',
    path: '/:component/:workflowName/start',
    async run(ctx, api, maxBodyBytes) {
      checkWorkflowComponent(param(ctx, 'component'));
      const instanceId = requestedInstanceId(ctx);
      const input = await readRawBody(ctx, maxBodyBytes);
      ctx.status = 202;
      answerJson(ctx, { instanceID: await api.start(param(ctx, 'component'), param(ctx, 'workflowName'), instanceId, input) });
    },
  },
  {
    method: 'get',
    path: '/:component/:instanceId',
    async run(ctx, api) {
      const changedAfter = time(ctx.query, 'changedAfter');
      if (changedAfter === undefined) {
        answerJson(ctx, await api.get(param(ctx, 'component'), param(ctx, 'instanceId')));
        return;
      }
      // A watch (`svc workflow get --follow`): answered when the instance changes, at the latest after waitSeconds.
      const clientGone = new AbortController();
      ctx.req.once('close', () => clientGone.abort());
      answerJson(ctx, await api.watch(param(ctx, 'component'), param(ctx, 'instanceId'), changedAfter, waitSeconds(ctx.query) * 1000, clientGone.signal));
    },
  },
  { method: 'post', path: '/:component/:instanceId/terminate', run: instanceCommand((api, c, id) => api.terminate(c, id)) },
  {
    method: 'post',
    path: '/:component/:instanceId/raiseEvent/:eventName',
    async run(ctx, api, maxBodyBytes) {
      checkWorkflowComponent(param(ctx, 'component'));
      checkExistingInstanceId(param(ctx, 'instanceId'));
      const data = await readRawBody(ctx, maxBodyBytes);
      await api.raiseEvent(param(ctx, 'component'), param(ctx, 'instanceId'), param(ctx, 'eventName'), data);
      accepted(ctx);
    },
  },
  { method: 'post', path: '/:component/:instanceId/pause', run: instanceCommand((api, c, id) => api.pause(c, id)) },
  { method: 'post', path: '/:component/:instanceId/resume', run: instanceCommand((api, c, id) => api.resume(c, id)) },
  { method: 'post', path: '/:component/:instanceId/purge', run: instanceCommand((api, c, id) => api.purge(c, id)) },
];

/**
 * Any other path under `/<version>/workflows`: a 400 that names what is wrong (component, empty instance ID,
 * missing event name) instead of a bare 404, because these are malformed requests to a known API.
 */
function malformedPath(ctx: Context): never {
  const rest = param(ctx, 'rest');
  const segments = rest.split('/');
  const [component, instanceId] = segments;
  if (component === undefined || component === '') throw new RuntimeError('ERR_MALFORMED_REQUEST', 'no workflow component was provided: use /v1.0/workflows/svc/...');
  checkWorkflowComponent(component);
  if (instanceId === undefined || instanceId === '') checkExistingInstanceId('');
  if (segments[2] === 'raiseEvent' && (segments[3] ?? '') === '') {
    throw new RuntimeError('ERR_WORKFLOW_EVENT_NAME_MISSING', 'missing workflow event name: use .../raiseEvent/<eventName>');
  }
  throw new RuntimeError('ERR_MALFORMED_REQUEST', `no workflow API route for ${ctx.method} ${ctx.path}`);
}

/** The workflow HTTP API on top of `WorkflowManagementApi`, under every version prefix. */
export function workflowHttpRoutes(opts: WorkflowHttpOptions): HttpRouteGroup {
  const { api } = opts;
  return {
    mount(router: Router) {
      for (const version of WORKFLOW_API_VERSIONS) {
        const base = `/${version}/workflows`;
        for (const route of ROUTES) router[route.method](base + route.path, (ctx: Context) => route.run(ctx, api, opts.maxBodyBytes));
        router.all(`${base}{/*rest}`, malformedPath);
      }
    },
  };
}
