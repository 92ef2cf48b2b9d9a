/** The multi-instance RPCs (`ListInstanceIDs`, `PurgeInstances` with a filter): wire ↔ engine requests. */
import type { ListInstanceIDsRequest__Output, ListInstanceIDsResponse, PurgeInstanceFilter__Output } from '@svc/proto';
import { RuntimeError } from '../../../errors/runtime-error.js';
import type { ListInstanceIdsRequest, PurgeFilter, RuntimeStatus } from '../../../workflow/engine.js';
import { optional } from '../../../workflow/optional.js';
import { fromTimestamp } from './wire.js';

const WIRE_STATUSES: Record<string, RuntimeStatus[]> = {
  ORCHESTRATION_STATUS_RUNNING: ['RUNNING'],
  ORCHESTRATION_STATUS_COMPLETED: ['COMPLETED'],
  ORCHESTRATION_STATUS_CONTINUED_AS_NEW: ['CONTINUED_AS_NEW'],
  ORCHESTRATION_STATUS_FAILED: ['FAILED'],
  // The wire shows CANCELED as TERMINATED (wire.ts), so TERMINATED selects both.
  ORCHESTRATION_STATUS_TERMINATED: ['TERMINATED', 'CANCELED'],
  ORCHESTRATION_STATUS_CANCELED: ['CANCELED'],
  ORCHESTRATION_STATUS_PENDING: ['PENDING'],
  ORCHESTRATION_STATUS_SUSPENDED: ['SUSPENDED'],
};

export function fromListRequest(req: ListInstanceIDsRequest__Output): ListInstanceIdsRequest {
  return { ...optional('continuationToken', req.continuationToken), ...optional('pageSize', req.pageSize) };
}

export function toListResponse(page: { instanceIds: string[]; continuationToken?: string }): ListInstanceIDsResponse {
  return { instanceIds: page.instanceIds, ...optional('continuationToken', page.continuationToken) };
}

export function fromPurgeFilter(f: PurgeInstanceFilter__Output): PurgeFilter {
  const from = fromTimestamp(f.createdTimeFrom);
  const to = fromTimestamp(f.createdTimeTo);
  const statuses = f.runtimeStatus.flatMap((s) => {
    const mapped = WIRE_STATUSES[String(s)];
    if (!mapped) throw new RuntimeError('ERR_MALFORMED_REQUEST', `purgeInstanceFilter.runtimeStatus: unknown status ${String(s)}`);
    return mapped;
  });
  return {
    ...(from !== undefined ? { createdFrom: new Date(from) } : {}),
    ...(to !== undefined ? { createdTo: new Date(to) } : {}),
    ...(statuses.length > 0 ? { statuses } : {}),
  };
}
