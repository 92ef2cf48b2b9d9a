/**
 * The svcd HTTP API as the UI calls it: same origin, the API token (when svcd asks for one) from this browser
 * session's storage, errors as svcd's `{errorCode, message}`.
 */
import type { InstanceListView } from '@svc/runtime/workflow/management-api.js';
import type { WorkflowInstanceView } from '@svc/runtime/workflow/instance-view.js';
import type { HistoryEventView, HistoryPageView } from '@svc/runtime/workflow/history-view.js';
import type { WaitingView } from '@svc/runtime/workflow/waiting-view.js';
import type { ComponentMetadata } from '@svc/runtime/components/metadata.js';
import type { WorkerView } from '@svc/runtime/workflow/worker-view.js';

const TOKEN_KEY = 'svc-api-token';
const BASE = '/v1.0/workflows/svc';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const token = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (value: string): void => sessionStorage.setItem(TOKEN_KEY, value),
  clear: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

async function call<T>(method: string, path: string, body?: string): Promise<T> {
  const headers: Record<string, string> = {};
  const t = token.get();
  if (t !== null) headers['svc-api-token'] = t;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  if (!res.ok) {
    let parsed: { errorCode?: string; message?: string } = {};
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      // not svcd's error shape: show the status
    }
    throw new ApiError(res.status, parsed.errorCode ?? `HTTP_${res.status}`, parsed.message ?? (text || res.statusText));
  }
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** The wire shapes are svcd's own (type-only imports: nothing of the runtime is bundled). */
export type { InstanceListView as InstanceList, InstanceSummaryView as InstanceSummary } from '@svc/runtime/workflow/management-api.js';
export type { WorkflowInstanceView as Instance } from '@svc/runtime/workflow/instance-view.js';
export type { HistoryEventView as HistoryEvent, HistoryPageView as HistoryPage } from '@svc/runtime/workflow/history-view.js';
export type { WaitingView as Waiting, TimerPurpose } from '@svc/runtime/workflow/waiting-view.js';
export type { WorkerView as Worker } from '@svc/runtime/workflow/worker-view.js';

/** The parts of `/v1.0/metadata` the UI shows (each part of svcd contributes its own; see RuntimeMetadata). */
export interface RuntimeMetadata {
  id: string;
  runtimeVersion: string;
  components: ComponentMetadata[];
  actors?: { type: string; count: number }[];
  subscriptions?: { pubsubname: string; topic: string; type: string; deadLetterTopic?: string; rules: { match: string; path: string }[] }[];
  /** `traceViewer`: `--trace-viewer-url`, a trace's page with `{traceId}` standing for its id. */
  workflows?: { connectedWorkers: number; workers?: WorkerView[]; traceViewer?: string };
}

const id = (instanceId: string) => `${BASE}/${encodeURIComponent(instanceId)}`;

export const api = {
  list: (query: URLSearchParams) => call<InstanceListView>('GET', `${BASE}?${query.toString()}`),
  get: (instanceId: string) => call<WorkflowInstanceView>('GET', id(instanceId)),
  waiting: (instanceId: string) => call<WaitingView>('GET', `${id(instanceId)}/waiting`),
  /** An empty instance ID lets svcd generate one; an empty input starts without input. */
  start: (workflowName: string, instanceId: string, input: string) =>
    call<{ instanceID: string }>(
      'POST',
      `${BASE}/${encodeURIComponent(workflowName)}/start${instanceId !== '' ? `?instanceID=${encodeURIComponent(instanceId)}` : ''}`,
      input === '' ? undefined : input,
    ),
  metadata: () => call<RuntimeMetadata>('GET', '/v1.0/metadata'),
  history: (instanceId: string, continuationToken: string | null) =>
    call<HistoryPageView>('GET', `${id(instanceId)}/history?pageSize=5000${continuationToken !== null ? `&continuationToken=${continuationToken}` : ''}`),
  event: (instanceId: string, index: number) => call<HistoryEventView>('GET', `${id(instanceId)}/history/${index}`),
  raiseEvent: (instanceId: string, name: string, data: string) => call<void>('POST', `${id(instanceId)}/raiseEvent/${encodeURIComponent(name)}`, data === '' ? undefined : data),
  command: (instanceId: string, op: 'pause' | 'resume' | 'terminate' | 'purge') => call<void>('POST', `${id(instanceId)}/${op}`),
  rerun: (instanceId: string, eventId: number, newInstanceId: string, input: string) =>
    call<{ instanceID: string }>(
      'POST',
      `${id(instanceId)}/rerun/${eventId}${newInstanceId !== '' ? `?newInstanceID=${encodeURIComponent(newInstanceId)}` : ''}`,
      input === '' ? undefined : input,
    ),
};
