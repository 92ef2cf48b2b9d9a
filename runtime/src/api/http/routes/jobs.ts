import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import { encodeJsonValue, JSON_VALUE_TYPE_URL } from '@svc/proto';
import { parseGoDuration } from '../../../actors/durations.js';
import { malformedRequest } from '../../../errors/catalogue.js';
import { RuntimeError } from '../../../errors/runtime-error.js';
import type { FailurePolicy, Job } from '../../../jobs/job.js';
import type { JobsApi } from '../../../jobs/jobs-api.js';
import type { HttpRouteGroup } from '../app.js';
import { readRawBody } from '../body.js';
import { parseJsonBodyWithSpans, type JsonNode } from '../json-body.js';
import { jobJson } from './job-json.js';
import { answerJson } from '../json-answer.js';

/** A field under its JSON name or its proto name (`dueTime` / `due_time`), as protojson reads either. */
function either(body: JsonNode, jsonName: string, protoName: string): JsonNode | undefined {
  return body.field(jsonName) ?? body.field(protoName);
}

function bool(node: JsonNode | undefined): boolean {
  if (node === undefined) return false;
  if (typeof node.value !== 'boolean') throw malformedRequest(`${node.path} must be true or false`);
  return node.value;
}

/** protojson's Duration (`"1.5s"`), or a Go duration (`"500ms"`, `"2m"`) as the reference's docs write them. */
function durationMs(node: JsonNode): number {
  const text = node.string();
  const seconds = /^(\d+(?:\.\d{1,9})?)s$/.exec(text);
  const ms = seconds ? Number(seconds[1]) * 1000 : parseGoDuration(text);
  if (ms === undefined || ms < 0) throw malformedRequest(`${node.path} must be a duration such as 1s or 500ms`);
  return ms;
}

function failurePolicy(node: JsonNode): FailurePolicy {
  if (node.field('drop')) return { kind: 'drop' };
  const constant = node.field('constant');
  if (!constant) throw malformedRequest(`${node.path} must hold drop or constant`);
  const interval = constant.field('interval');
  const maxRetries = either(constant, 'maxRetries', 'max_retries');
  return { kind: 'constant', intervalMs: interval ? durationMs(interval) : 0, ...(maxRetries && { maxRetries: maxRetries.integer() }) };
}

/** The reference's JobHTTPRequest: the job's fields at the top level, its name from the path only. */
function jobFromBody(name: string, body: JsonNode): { job: Job; overwrite: boolean } {
  if (!body.isObject()) throw malformedRequest('the body must be a JSON object');
  if (body.field('name')) throw new RuntimeError('DAPR_SCHEDULER_JOB_NAME', 'set the job name in the URL only, not in the body');
  const text = (node: JsonNode | undefined) => node?.string();
  const schedule = text(body.field('schedule'));
  const dueTime = text(either(body, 'dueTime', 'due_time'));
  const ttl = text(body.field('ttl'));
  const repeats = body.field('repeats')?.integer();
  if (repeats !== undefined && repeats < 0) throw malformedRequest('repeats must not be negative');
  const data = body.field('data');
  const policy = either(body, 'failurePolicy', 'failure_policy');
  const job: Job = {
    name,
    ...(schedule !== undefined && { schedule }),
    ...(repeats !== undefined && repeats > 0 && { repeats }),
    ...(dueTime !== undefined && { dueTime }),
    ...(ttl !== undefined && { ttl }),
    ...(data && { data: { typeUrl: JSON_VALUE_TYPE_URL, value: encodeJsonValue(data.value) } }),
    ...(policy && { failurePolicy: failurePolicy(policy) }),
  };
  return { job, overwrite: bool(body.field('overwrite')) };
}

/**
 * `POST /v1.0-alpha1/jobs/<name>` (and `/v1.0/jobs/<name>`): schedule, 204; `GET`: the job as JSON, 200 (404
 * `DAPR_SCHEDULER_GET_JOB` when there is none); `DELETE`: 204, also when there was none.
 */
export function jobRoutes(api: JobsApi, maxBodyBytes: number): HttpRouteGroup {
  const name = (ctx: RouterContext) => ctx.params.name!;
  return {
    mount(router: Router) {
      for (const version of ['v1.0-alpha1', 'v1.0']) {
        router.post(`/${version}/jobs/:name`, async (ctx) => {
          const body = parseJsonBodyWithSpans(await readRawBody(ctx, maxBodyBytes), 0);
          await api.schedule(jobFromBody(name(ctx), body));
          ctx.status = 204;
        });
        router.get(`/${version}/jobs/:name`, async (ctx) => {
          answerJson(ctx, jobJson(await api.get(name(ctx))));
        });
        router.delete(`/${version}/jobs/:name`, async (ctx) => {
          await api.delete(name(ctx));
          ctx.status = 204;
        });
      }
    },
  };
}
