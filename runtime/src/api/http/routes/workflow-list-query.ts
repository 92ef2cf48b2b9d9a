/**
 * The query string of `GET /v1.0/workflows/svc` (the instance list), checked strictly: an unknown parameter or
 * a malformed value is a 400 that names it, never a silently wider listing.
 */
import type { InstanceFilter, ListInstancesRequest, RuntimeStatus } from '../../../workflow/engine.js';
import { malformedRequest } from '../../../errors/catalogue.js';

const STATUSES: readonly RuntimeStatus[] = ['RUNNING', 'COMPLETED', 'CONTINUED_AS_NEW', 'FAILED', 'CANCELED', 'TERMINATED', 'PENDING', 'SUSPENDED'];

export const LIST_QUERY_PARAMETERS = ['status', 'name', 'createdFrom', 'createdTo', 'instanceIDPrefix', 'pageSize', 'continuationToken'] as const;

export type Query = Record<string, string | string[] | undefined>;

/** One value of a parameter that may appear once. */
export function single(query: Query, name: string): string | undefined {
  const v = query[name];
  if (Array.isArray(v)) throw malformedRequest(`the ${name} query parameter was given more than once`);
  return v;
}

/** `status=RUNNING,FAILED` or `status=RUNNING&status=FAILED`; case-insensitive. */
function statuses(query: Query): RuntimeStatus[] | undefined {
  const raw = query.status;
  if (raw === undefined) return undefined;
  const names = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(',')).map((v) => v.trim().toUpperCase()).filter((v) => v !== '');
  for (const n of names) {
    if (!STATUSES.includes(n as RuntimeStatus)) throw malformedRequest(`unknown workflow status '${n.slice(0, 40)}': use one or more of ${STATUSES.join(', ')}`);
  }
  return names as RuntimeStatus[];
}

/** An RFC 3339 time (a date alone means its UTC midnight). */
export function time(query: Query, name: string): number | undefined {
  const v = single(query, name);
  if (v === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(ms)) throw malformedRequest(`${name} '${v.slice(0, 40)}' is not a time: use RFC 3339, e.g. 2026-11-25T10:00:00Z`);
  return ms;
}

/** `?pageSize=`: a positive whole number. */
export function pageSize(query: Query): number | undefined {
  const v = single(query, 'pageSize');
  if (v === undefined) return undefined;
  if (!/^\d{1,9}$/.test(v) || Number(v) < 1) throw malformedRequest(`pageSize '${v.slice(0, 40)}' is not a positive whole number`);
  return Number(v);
}

export function listInstancesRequest(query: Query): ListInstancesRequest {
  const unknown = Object.keys(query).filter((k) => !(LIST_QUERY_PARAMETERS as readonly string[]).includes(k));
  if (unknown.length > 0) throw malformedRequest(`unknown query parameter '${unknown[0]!.slice(0, 40)}': the list takes ${LIST_QUERY_PARAMETERS.join(', ')}`);
  const filter: { -readonly [K in keyof InstanceFilter]: InstanceFilter[K] } = {};
  const s = statuses(query);
  if (s && s.length > 0) filter.statuses = s;
  const name = single(query, 'name');
  if (name !== undefined && name !== '') filter.name = name;
  const from = time(query, 'createdFrom');
  if (from !== undefined) filter.createdFrom = from;
  const to = time(query, 'createdTo');
  if (to !== undefined) filter.createdTo = to;
  const prefix = single(query, 'instanceIDPrefix');
  if (prefix !== undefined && prefix !== '') filter.instanceIdPrefix = prefix;
  const size = pageSize(query);
  const token = single(query, 'continuationToken');
  return { filter, ...(size !== undefined ? { pageSize: size } : {}), ...(token !== undefined && token !== '' ? { continuationToken: token } : {}) };
}
