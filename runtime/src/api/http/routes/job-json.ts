/** A job as the reference's HTTP API answers it: the Job message in protojson (`data` an Any with its `@type`). */
import { decodeJsonValue, JSON_VALUE_TYPE_URL } from '@svc/proto';
import type { FailurePolicy, Job, JobData } from '../../../jobs/job.js';

/** protojson's Duration: seconds with as many decimals as needed, then `s`. */
const durationText = (ms: number) => `${Number((ms / 1000).toFixed(9))}s`;

function policyJson(p: FailurePolicy): Record<string, unknown> {
  if (p.kind === 'drop') return { drop: {} };
  return { constant: { interval: durationText(p.intervalMs), ...(p.maxRetries !== undefined && { maxRetries: p.maxRetries }) } };
}

/** A google.protobuf.Value shows as its JSON; an Any of another type as its bytes in base64 under `value`. */
function dataJson(d: JobData): Record<string, unknown> {
  return { '@type': d.typeUrl, value: d.typeUrl === JSON_VALUE_TYPE_URL ? decodeJsonValue(d.value) : d.value.toString('base64') };
}

export function jobJson(j: Job): Record<string, unknown> {
  // A Job holds only the fields it was given: its name and texts go as they are.
  const { data, failurePolicy, ...named } = j;
  return { ...named, ...(data && { data: dataJson(data) }), ...(failurePolicy && { failurePolicy: policyJson(failurePolicy) }) };
}
