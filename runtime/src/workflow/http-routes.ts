import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ErrorCode } from '../errors/codes.js';
import { RuntimeError, ensureError } from '../errors/runtime-error.js';
import type { HttpRouteGroup } from '../api/http/app.js';
import { readRawBody } from '../api/http/body.js';
import { type WorkflowEngine, type WorkflowInstance } from './engine.js';
import { bodyAsPayload, checkWorkflowComponent } from './http-validation.js';
import { checkExistingInstanceId, checkNewInstanceId } from './instance-id.js';
import { instanceView, propertyPrefix } from './http-view.js';

/** `/v1.0` is the documented prefix; the other two keep `@dapr/dapr` clients and older scripts working. */
export const WORKFLOW_API_VERSIONS: readonly string[] = ['v1.0', 'v1.0-beta1', 'v1.0-alpha1'];

export interface WorkflowHttpOptions {
  readonly engine: WorkflowEngine;
  /** Largest accepted start input / event payload (`--max-request-size`); larger bodies get 413. */
  readonly maxBodyBytes: number;
}

interface WorkflowRoute {
  readonly method: 'get' | 'post';
  /** Path after `/<version>/workflows`; `:instanceId` is validated before `run` is called. */
  readonly path: string;
  /** Code and wording used when the engine fails with something that is not already a catalogued error. */
  readonly failureCode: ErrorCode;
  readonly action: string;
  run(ctx: Context, opts: WorkflowHttpOptions): Promise<void>;
}

function param(ctx: Context, name: string): string {
  return (ctx.params as Record<string, string | undefined>)[name] ?? '';
}

/** 202 with an empty body (the brief: "Response body: none"); Koa would otherwise send the text "Accepted". */
function accepted(ctx: Context): void {
  ctx.status = 202;
  ctx.body = '';
}

/** The instance ID of a start call: the `instanceID` query parameter, or a fresh UUID when it is absent. */
function requestedInstanceId(ctx: Context): string {
  const given = ctx.query.instanceID;
  if (given === undefined) return randomUUID();
  if (Array.isArray(given)) throw new RuntimeError('ERR_MALFORMED_REQUEST', 'the instanceID query parameter was given more than once');
  checkNewInstanceId(given);
  return given;
}

/** `POST .../<id>/<operation>`: one engine call on the instance, answered with 202 and no body. */
function instanceCommand(
  operation: string,
  failureCode: ErrorCode,
  action: string,
  call: (engine: WorkflowEngine, instanceId: string) => Promise<void>,
): WorkflowRoute {
  return {
    method: 'post',
    path: `/:component/:instanceId/${operation}`,
    failureCode,
    action,
    async run(ctx, { engine }) {
      await call(engine, param(ctx, 'instanceId'));
      accepted(ctx);
    },
  };
}

const ROUTES: readonly WorkflowRoute[] = [
  {
    method: 'post',
    path: '/:component/:workflowName/start',
    failureCode: 'ERR_START_WORKFLOW',
    action: 'starting workflow',
    async run(ctx, { engine, maxBodyBytes }) {
      const instanceId = requestedInstanceId(ctx);
      const input = bodyAsPayload(await readRawBody(ctx, maxBodyBytes));
      const started = await engine.start({ name: param(ctx, 'workflowName'), instanceId, input });
      ctx.status = 202;
      ctx.body = { instanceID: started };
    },
  },
  {
    method: 'get',
    path: '/:component/:instanceId',
    failureCode: 'ERR_GET_WORKFLOW',
    action: 'getting workflow',
    async run(ctx, { engine }) {
      ctx.body = instanceView(await existingInstance(ctx, engine), propertyPrefix(param(ctx, 'component')));
    },
  },
  // Recursive, like the reference HTTP API: terminating a parent must not leave its children running.
  instanceCommand('terminate', 'ERR_TERMINATE_WORKFLOW', 'terminating workflow', (engine, id) => engine.terminate(id, { recursive: true })),
  {
    method: 'post',
    path: '/:component/:instanceId/raiseEvent/:eventName',
    failureCode: 'ERR_RAISE_EVENT_WORKFLOW',
    action: 'raising event on workflow',
    async run(ctx, { engine, maxBodyBytes }) {
      const data = bodyAsPayload(await readRawBody(ctx, maxBodyBytes));
      await engine.raiseEvent(param(ctx, 'instanceId'), param(ctx, 'eventName'), data);
      accepted(ctx);
    },
  },
  instanceCommand('pause', 'ERR_PAUSE_WORKFLOW', 'pausing workflow', (engine, id) => engine.suspend(id)),
  instanceCommand('resume', 'ERR_RESUME_WORKFLOW', 'resuming workflow', (engine, id) => engine.resume(id)),
  {
    method: 'post',
    path: '/:component/:instanceId/purge',
    failureCode: 'ERR_PURGE_WORKFLOW',
    action: 'purging workflow',
    async run(ctx, { engine }) {
      // The engine checks the whole tree in the instance's own turns: 404 when unknown, 409
      // ERR_PURGE_WORKFLOW_NOT_COMPLETED when it or a sub-workflow still runs (also when racing a restart).
      await engine.purge(param(ctx, 'instanceId'), { recursive: true });
      accepted(ctx);
    },
  },
];

/** The instance named by the path, or 404 `ERR_INSTANCE_ID_NOT_FOUND`. */
async function existingInstance(ctx: Context, engine: WorkflowEngine): Promise<WorkflowInstance> {
  const instanceId = param(ctx, 'instanceId');
  const instance = await engine.get(instanceId);
  if (instance === undefined) {
    throw new RuntimeError('ERR_INSTANCE_ID_NOT_FOUND', `unable to find workflow with the provided instance ID: ${instanceId}`);
  }
  return instance;
}

/** Validates the path, runs the route, and gives engine failures that carry no code the route's own code. */
function handler(route: WorkflowRoute, opts: WorkflowHttpOptions) {
  return async (ctx: Context) => {
    checkWorkflowComponent(param(ctx, 'component'));
    if (route.path.includes(':instanceId')) checkExistingInstanceId(param(ctx, 'instanceId'));
    try {
      await route.run(ctx, opts);
    } catch (err) {
      if (err instanceof RuntimeError) throw err;
      throw new RuntimeError(route.failureCode, `error ${route.action} at ${ctx.path}: ${ensureError(err).message}`, { cause: err });
    }
  };
}

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

/** The workflow HTTP API (brief §4.1) on top of the engine, under every version prefix. */
export function workflowHttpRoutes(opts: WorkflowHttpOptions): HttpRouteGroup {
  return {
    mount(router: Router) {
      for (const version of WORKFLOW_API_VERSIONS) {
        const base = `/${version}/workflows`;
        for (const route of ROUTES) router[route.method](base + route.path, handler(route, opts));
        router.all(`${base}{/*rest}`, malformedPath);
      }
    },
  };
}
