/** ScheduleJob, GetJob, DeleteJob, DeleteJobsByPrefix and ListJobs on `JobsApi`, under their stable and Alpha1 names. */
import type { Duration__Output } from '@svc/proto/gen/google/protobuf/Duration.js';
import type { JobFailurePolicy, JobFailurePolicy__Output } from '@svc/proto/gen/svc/proto/common/v1/JobFailurePolicy.js';
import type { DeleteJobRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/DeleteJobRequest.js';
import type { DeleteJobsByPrefixRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/DeleteJobsByPrefixRequest.js';
import type { GetJobRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/GetJobRequest.js';
import type { Job as JobMessage, Job__Output } from '@svc/proto/gen/svc/proto/runtime/v1/Job.js';
import type { ListJobsResponse } from '@svc/proto/gen/svc/proto/runtime/v1/ListJobsResponse.js';
import type { ScheduleJobRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/ScheduleJobRequest.js';
import { RuntimeError } from '../../../errors/runtime-error.js';
import type { FailurePolicy, Job } from '../../../jobs/job.js';
import type { JobsApi } from '../../../jobs/jobs-api.js';
import type { Handler } from './handler.js';

function policyFrom(p: JobFailurePolicy__Output): FailurePolicy | undefined {
  if (p.drop) return { kind: 'drop' };
  if (!p.constant) return undefined;
  return { kind: 'constant', intervalMs: durationMs(p.constant.interval), ...(p.constant.maxRetries !== undefined && { maxRetries: p.constant.maxRetries }) };
}

const durationMs = (d: Duration__Output | null) => (d ? Number(d.seconds) * 1000 + Math.round(d.nanos / 1e6) : 0);

function jobFrom(m: Job__Output): Job {
  const policy = m.failurePolicy ? policyFrom(m.failurePolicy) : undefined;
  return {
    name: m.name,
    ...(m.schedule !== undefined && { schedule: m.schedule }),
    // 0 says nothing (a client's unset number): fires until its TTL, as with none
    ...(m.repeats !== undefined && m.repeats > 0 && { repeats: m.repeats }),
    ...(m.dueTime !== undefined && { dueTime: m.dueTime }),
    ...(m.ttl !== undefined && { ttl: m.ttl }),
    ...(m.data && { data: { typeUrl: m.data.type_url, value: m.data.value } }),
    ...(policy && { failurePolicy: policy }),
  };
}

function policyMessage(p: FailurePolicy): JobFailurePolicy {
  if (p.kind === 'drop') return { drop: {} };
  const interval = { seconds: String(Math.floor(p.intervalMs / 1000)), nanos: (p.intervalMs % 1000) * 1e6 };
  return { constant: { interval, ...(p.maxRetries !== undefined && { maxRetries: p.maxRetries }) } };
}

export function jobMessage(j: Job): JobMessage {
  // A Job holds only the fields it was given: its name and texts go as they are.
  const { data, failurePolicy, ...named } = j;
  return { ...named, ...(data && { data: { type_url: data.typeUrl, value: data.value } }), ...(failurePolicy && { failurePolicy: policyMessage(failurePolicy) }) };
}

export function jobHandlers(api: JobsApi) {
  const schedule = (async (req) => {
    if (!req.job) throw new RuntimeError('DAPR_SCHEDULER_EMPTY', 'the request has no job');
    await api.schedule({ job: jobFrom(req.job), overwrite: req.overwrite });
    return {};
  }) satisfies Handler<ScheduleJobRequest__Output, object>;
  const get = (async (req) => ({ job: jobMessage(await api.get(req.name)) })) satisfies Handler<GetJobRequest__Output, object>;
  const del = (async (req) => {
    await api.delete(req.name);
    return {};
  }) satisfies Handler<DeleteJobRequest__Output, object>;
  const deleteByPrefix = (async (req) => {
    await api.deleteByPrefix(req.namePrefix ?? '');
    return {};
  }) satisfies Handler<DeleteJobsByPrefixRequest__Output, object>;
  const list = (async () => ({ jobs: (await api.list()).map(jobMessage) })) satisfies Handler<object, ListJobsResponse>;
  return {
    ScheduleJob: schedule,
    ScheduleJobAlpha1: schedule,
    GetJob: get,
    GetJobAlpha1: get,
    DeleteJob: del,
    DeleteJobAlpha1: del,
    DeleteJobsByPrefix: deleteByPrefix,
    DeleteJobsByPrefixAlpha1: deleteByPrefix,
    ListJobs: list,
    ListJobsAlpha1: list,
  };
}
