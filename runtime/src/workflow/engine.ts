/**
 * The transport-free workflow engine boundary. The Durable Task gRPC service (`TaskHubSidecarService`) and the
 * HTTP workflow API both call this interface and nothing else; neither knows about actors, history or storage.
 *
 * Payloads (`input`, `output`, event data) are opaque strings: the engine stores and returns them byte-for-byte
 * (SDKs put JSON text there; the HTTP API passes the raw request body). `customStatus` is opaque too.
 *
 * Errors are `RuntimeError`s with catalogue codes (`runtime/src/errors/codes.ts`):
 * - `ERR_INSTANCE_ID_NOT_FOUND` (404): the instance does not exist (never started, or purged);
 * - `ERR_WORKFLOW_ALREADY_EXISTS` (409): start with the ID of a non-terminal instance (that one is untouched);
 * - `ERR_PURGE_WORKFLOW_NOT_COMPLETED` (409, gRPC FAILED_PRECONDITION): purge of a non-terminal instance, or of
 *   one whose sub-workflows have not all finished (nothing deleted);
 * - `ERR_ACTOR_RUNTIME_NOT_FOUND` (500): no actor state store is configured (see `unavailable-engine.ts`);
 * - the operation's own code (`ERR_START_WORKFLOW`, `ERR_RAISE_EVENT_WORKFLOW`, ...) for storage failures.
 * Transports may re-map codes to their own wire conventions (e.g. gRPC GetInstance answers `exists:false`).
 */

import type { FailureDetails, HistoryEvent, TraceContext } from './history.js';
import type { RerunRequest } from './rerun.js';

/** Status strings exactly as the HTTP API prints them; the gRPC wire names are mapped in `api/grpc/durabletask/wire.ts`. */
export type RuntimeStatus =
  | 'RUNNING'
  | 'COMPLETED'
  | 'CONTINUED_AS_NEW'
  | 'FAILED'
  | 'CANCELED'
  | 'TERMINATED'
  | 'PENDING'
  | 'SUSPENDED';

/** Statuses after which nothing more happens to an instance (it may be purged or its ID reused). */
export const TERMINAL_STATUSES: ReadonlySet<RuntimeStatus> = new Set<RuntimeStatus>(['COMPLETED', 'FAILED', 'TERMINATED', 'CANCELED']);

export function isTerminalStatus(status: RuntimeStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}


/** A snapshot of one instance, as both APIs report it. */
export interface WorkflowInstance {
  instanceId: string;
  /** Workflow name given at start. */
  name: string;
  runtimeStatus: RuntimeStatus;
  /** When the instance was created (start requested). */
  createdAt: Date;
  /** Time of the last change recorded for the instance. */
  lastUpdatedAt: Date;
  /** Only for a scheduled (delayed) start. */
  scheduledStartTime?: Date;
  input?: string;
  output?: string;
  customStatus?: string;
  failureDetails?: FailureDetails;
  /** Set for sub-workflows. */
  parentInstanceId?: string;
  /** The trace the run's spans belong to (32 hex digits); absent when its start was not traced. */
  traceId?: string;
}

export interface StartWorkflowRequest {
  /** Workflow name the SDK worker registered. */
  name: string;
  /** Generated (UUID v4) when absent or empty. Not validated here: the HTTP API validates its own IDs. */
  instanceId?: string;
  /** Raw input text, stored as-is. `undefined` means no input. */
  input?: string;
  /** Delayed start: the instance stays PENDING until then. Ignored when not in the future. */
  scheduledStartTime?: Date;
  /** What to do when an instance with this ID exists; absent: replace a terminal one, refuse a live one. */
  reuse?: IdReusePolicy;
  /** The caller's trace context when the request carries its own (Durable Task `parentTraceContext`); absent: the active span's. */
  parentTrace?: TraceContext;
}

/**
 * The Durable Task protocol's instance-ID reuse policy. `unique` (`enforceUniqueInstanceId`) refuses any existing
 * instance. Otherwise, when the existing instance's status is one of `statuses`, `action` applies (`error`
 * refuses, `ignore` keeps it and answers its ID, `terminate` replaces it even while it runs); any other status
 * refuses the start. Refusal is `ERR_WORKFLOW_ALREADY_EXISTS`.
 */
export interface IdReusePolicy {
  unique?: boolean;
  statuses?: RuntimeStatus[];
  action?: 'error' | 'ignore' | 'terminate';
}

export interface TerminateOptions {
  /** Raw output text recorded as the terminated instance's output. */
  output?: string;
  /** Also terminate every non-terminal sub-workflow (transitively). */
  recursive?: boolean;
}

export interface PurgeOptions {
  /** Also purge the sub-workflows recorded in the history (transitively). */
  recursive?: boolean;
}

export interface ListInstanceIdsRequest {
  /** From the previous page's answer; absent: the first page. Anything else → `ERR_MALFORMED_REQUEST`. */
  continuationToken?: string;
  /** Default `DEFAULT_LIST_PAGE_SIZE`; larger than `MAX_LIST_PAGE_SIZE` is cut to it. */
  pageSize?: number;
}

export interface InstanceIdPage {
  /** Ascending (byte order). */
  instanceIds: string[];
  /** Absent on the last page. */
  continuationToken?: string;
}

/** What a listing shows of an instance: its instance index entry (times in epoch ms). */
export interface InstanceSummary {
  readonly instanceId: string;
  readonly name: string;
  readonly runtimeStatus: RuntimeStatus;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  readonly parentInstanceId?: string;
}

/** Which instances a listing returns; every given condition must hold. */
export interface InstanceFilter {
  readonly statuses?: readonly RuntimeStatus[];
  /** Exact workflow name. */
  readonly name?: string;
  /** Epoch ms, created at or after. */
  readonly createdFrom?: number;
  /** Epoch ms, created before. */
  readonly createdTo?: number;
  readonly instanceIdPrefix?: string;
}

export interface ListInstancesRequest {
  readonly filter: InstanceFilter;
  /** Default `DEFAULT_LIST_PAGE_SIZE`; larger than `MAX_LIST_PAGE_SIZE` is cut to it. */
  readonly pageSize?: number;
  /** From the previous page's answer; anything else → `ERR_MALFORMED_REQUEST`. */
  readonly continuationToken?: string;
}

/** Newest update first. `continuationToken` is absent when nothing follows; a page may be short and still have one. */
export interface InstanceSummaryPage {
  readonly instances: InstanceSummary[];
  readonly continuationToken?: string;
}

export const DEFAULT_LIST_PAGE_SIZE = 100;
export const MAX_LIST_PAGE_SIZE = 1000;

/** The page size asked for, cut to MAX_LIST_PAGE_SIZE; DEFAULT_LIST_PAGE_SIZE when absent or not positive. */
export function listPageSize(asked: number | undefined): number {
  return Math.min(MAX_LIST_PAGE_SIZE, asked !== undefined && asked > 0 ? asked : DEFAULT_LIST_PAGE_SIZE);
}

/** Which instances a multi-instance purge deletes; every given condition must hold. Only terminal ones, always. */
export interface PurgeFilter {
  /** Created at or after. */
  createdFrom?: Date;
  /** Created before. */
  createdTo?: Date;
  /** One of these statuses; non-terminal statuses in it match nothing. Absent or empty: any terminal status. */
  statuses?: RuntimeStatus[];
}

/**
 * What a client can wait for. Data, not a predicate, so a wait can run on the replica that owns the instance.
 * - `started`: the status is no longer PENDING;
 * - `completed`: the status is terminal (COMPLETED, FAILED, TERMINATED);
 * - `suspended`: SUSPENDED, or terminal (a suspend that can no longer happen);
 * - `resumed`: anything but SUSPENDED;
 * - `{ changedAfter }`: updated after that time (ms since the epoch): a watch, as `svc workflow get --follow` keeps.
 */
export type WaitCondition = 'started' | 'completed' | 'suspended' | 'resumed' | { readonly changedAfter: number };

export function meetsCondition(instance: WorkflowInstance, condition: WaitCondition): boolean {
  if (typeof condition === 'object') return instance.lastUpdatedAt.getTime() > condition.changedAfter;
  return statusMeets(instance.runtimeStatus, condition);
}

/**
 * Whether a change notice with this new status may meet the condition (false: no need to re-read). The named
 * conditions depend on the status alone; any change may be the one a watch waits for.
 */
export function statusMeets(status: RuntimeStatus, condition: WaitCondition): boolean {
  if (typeof condition === 'object') return true;
  switch (condition) {
    case 'started':
      return status !== 'PENDING';
    case 'completed':
      return isTerminalStatus(status);
    case 'suspended':
      return status === 'SUSPENDED' || isTerminalStatus(status);
    case 'resumed':
      return status !== 'SUSPENDED';
  }
}

/** Part of a run's history (`WorkflowEngine.historyRange`): the events from the position asked for. */
export interface HistoryRange {
  /** Events in the run when it was read. */
  historyLength: number;
  events: HistoryEvent[];
}

export interface WorkflowEngine {
  /**
   * Durably creates an instance and schedules its first turn; resolves with the instance ID once stored (it does
   * not wait for a worker). Existing non-terminal instance → `ERR_WORKFLOW_ALREADY_EXISTS`; an existing terminal
   * instance is replaced by the new run.
   */
  start(req: StartWorkflowRequest): Promise<string>;

  /** `undefined` when the instance does not exist. */
  get(instanceId: string): Promise<WorkflowInstance | undefined>;

  /**
   * Starts a new instance from a finished one's history, cut after an activity or sub-workflow start (see
   * `rerun.ts`); resolves with the new instance's ID. Unknown source → `ERR_INSTANCE_ID_NOT_FOUND`; source not
   * finished → `ERR_RERUN_WORKFLOW_NOT_COMPLETED`; no such event → `ERR_RERUN_EVENT_INVALID`; the new ID taken by
   * a live instance → `ERR_WORKFLOW_ALREADY_EXISTS`.
   */
  rerunFromEvent(req: RerunRequest): Promise<string>;

  /** The instance's history events in order (the current run); `undefined` when the instance does not exist. */
  history(instanceId: string): Promise<HistoryEvent[] | undefined>;

  /**
   * Events `from` … `from + size − 1` of the current run (fewer at its end, none from past it) and the run's
   * length, both from one committed state: a page, read without reading the rest of the history. `undefined`
   * when the instance does not exist.
   */
  historyRange(instanceId: string, from: number, size: number): Promise<HistoryRange | undefined>;

  /**
   * Delivers an external event. Events raised before the workflow waits for them are kept (in order) and handed
   * to it; events for a suspended instance are held until resume; events for a terminal instance are dropped.
   * Unknown instance → `ERR_INSTANCE_ID_NOT_FOUND`.
   */
  raiseEvent(instanceId: string, eventName: string, data?: string): Promise<void>;

  /** Requests termination (no-op for a terminal instance). Unknown instance → `ERR_INSTANCE_ID_NOT_FOUND`. */
  terminate(instanceId: string, opts?: TerminateOptions): Promise<void>;

  /** Requests suspension (no-op when terminal). Unknown instance → `ERR_INSTANCE_ID_NOT_FOUND`. */
  suspend(instanceId: string, reason?: string): Promise<void>;

  /** Requests resumption (no-op unless suspended). Unknown instance → `ERR_INSTANCE_ID_NOT_FOUND`. */
  resume(instanceId: string, reason?: string): Promise<void>;

  /**
   * Deletes a terminal instance's state and reminders; resolves with the number of instances deleted (more than
   * one when recursive). Unknown instance → `ERR_INSTANCE_ID_NOT_FOUND`; non-terminal (itself or, when
   * recursive, a sub-workflow) → `ERR_PURGE_WORKFLOW_NOT_COMPLETED`, and nothing is deleted.
   */
  purge(instanceId: string, opts?: PurgeOptions): Promise<number>;

  /**
   * A page of the instance IDs, from the instance index (every instance whose latest turn was committed by a svcd
   * that writes the index). IDs are unique across the pages of one listing, and none that existed throughout is
   * skipped; instances started meanwhile may or may not appear. A store that cannot list →
   * `ERR_STATE_STORE_NOT_SUPPORTED`.
   */
  listInstanceIds(req: ListInstanceIdsRequest): Promise<InstanceIdPage>;

  /**
   * A page of the instances that match the filter, newest update first, from the instance index (no store
   * scan; one call reads a bounded part of it, so a selective filter may answer a short page with a token).
   * An instance is never listed twice across the pages of one listing; one that is updated while the listing
   * pages moves ahead of the position read and may be missed. Store that cannot list →
   * `ERR_STATE_STORE_NOT_SUPPORTED`.
   */
  listInstances(req: ListInstancesRequest): Promise<InstanceSummaryPage>;

  /**
   * Purges every terminal instance the filter matches (found through the instance index), with its
   * sub-workflows when recursive; resolves with the number deleted. An instance that is no longer terminal when
   * its turn comes, or whose tree still runs (recursive), is left alone and not counted.
   */
  purgeWhere(filter: PurgeFilter, opts?: PurgeOptions): Promise<number>;

  /**
   * Resolves with the first snapshot that meets `condition` (checked now, then on every change of the instance;
   * event-driven, no polling); `undefined` if the instance does not exist or is purged while waiting. Rejects with
   * `signal.reason` when the signal aborts.
   */
  waitFor(instanceId: string, condition: WaitCondition, signal: AbortSignal): Promise<WorkflowInstance | undefined>;
}
