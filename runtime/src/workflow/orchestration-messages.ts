/**
 * What the workflow engine and an instance's orchestration actor send each other: the payloads of the actor's
 * methods and messages, their encodings (large ones line by line, so a 100,000-action answer is never one JSON
 * text), and an instance's snapshot as JSON.
 */
import { createHash } from 'node:crypto';
import type { HistoryRange, IdReusePolicy, WorkflowInstance } from './engine.js';
import type { HistoryEvent, ParentInfo, TraceContext } from './history.js';
import type { TurnPlan, WorkerAction } from './instance.js';
import { decodeJsonLines, encodeJsonLines, joinJsonLines } from '../util/json-lines.js';

export interface StartRequest {
  name: string;
  instanceId: string;
  input?: string;
  scheduledStartTime?: number;
  parent?: ParentInfo;
  reuse?: IdReusePolicy;
  /** The context the new run's spans continue: the start call's span, or the parent run's orchestration span. */
  parentTrace?: TraceContext;
}

/** Messages between instances, carried in `msg-*` reminders. */
export type InstanceMessage = { kind: 'start'; request: StartRequest } | { kind: 'event'; event: HistoryEvent; generation?: number };

export interface CompletionPayload {
  plan: Pick<TurnPlan, 'generation' | 'historyLength' | 'seqs'> & { orchestratorStarted: HistoryEvent };
  actions: WorkerAction[];
  customStatus?: string;
}

export interface ActivityResultPayload {
  event: HistoryEvent;
  generation: number;
}

/** JSON form of `WorkflowInstance` (dates as epoch ms). */
export type InstanceSnapshot = Omit<WorkflowInstance, 'createdAt' | 'lastUpdatedAt' | 'scheduledStartTime'> & {
  createdAt: number;
  lastUpdatedAt: number;
  scheduledStartTime?: number;
};

export const encode = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
export const decode = <T>(b: Buffer | undefined): T | undefined => (b === undefined || b.length === 0 ? undefined : (JSON.parse(b.toString('utf8')) as T));

/** A worker's answer for the `complete` method, its actions line by line (a fan-out's answer has 100,000). */
export function encodeCompletion(p: CompletionPayload): Promise<Buffer> {
  const { actions, ...head } = p;
  return encodeJsonLines(head, actions);
}

export async function decodeCompletion(b: Buffer): Promise<CompletionPayload> {
  const { head, items } = await decodeJsonLines<Omit<CompletionPayload, 'actions'>, WorkerAction>(b);
  return { ...head, actions: items };
}

/** Activity results for the `activityResults` method, one per line. */
export function encodeActivityResults(results: readonly ActivityResultPayload[]): Promise<Buffer> {
  return encodeJsonLines(null, results);
}

export async function decodeActivityResults(b: Buffer): Promise<ActivityResultPayload[]> {
  return (await decodeJsonLines<null, ActivityResultPayload>(b)).items;
}

/** A message to another instance travels as a reminder on its actor, named after the message: a re-send replaces it. */
export function messageReminderName(identity: string): string {
  return `msg-${createHash('sha256').update(identity).digest('hex').slice(0, 32)}`;
}

/** What the `history` method answers: the events line by line, or nothing for an unknown instance. */
export function encodeHistory(events: readonly HistoryEvent[]): Promise<Buffer> {
  return encodeJsonLines(null, events);
}

export async function decodeHistory(b: Buffer | undefined): Promise<HistoryEvent[] | undefined> {
  return b === undefined || b.length === 0 ? undefined : (await decodeJsonLines<null, HistoryEvent>(b)).items;
}

/** A page of history for the `historyRange` method: the run's length, then the page's events one per line. */
export function encodeHistoryRange(range: HistoryRange): Promise<Buffer> {
  return encodeJsonLines({ historyLength: range.historyLength }, range.events);
}

/** The same answer from the events as stored (each `encode`d): their bytes, not parsed and written again. */
export function encodeStoredHistoryRange(historyLength: number, storedEvents: readonly Buffer[]): Buffer {
  return joinJsonLines({ historyLength }, storedEvents);
}

export async function decodeHistoryRange(b: Buffer | undefined): Promise<HistoryRange | undefined> {
  if (b === undefined || b.length === 0) return undefined;
  const { head, items } = await decodeJsonLines<{ historyLength: number }, HistoryEvent>(b);
  return { historyLength: head.historyLength, events: items };
}

export function toSnapshot(w: WorkflowInstance): InstanceSnapshot {
  const { createdAt, lastUpdatedAt, scheduledStartTime, ...rest } = w;
  return {
    ...rest,
    createdAt: createdAt.getTime(),
    lastUpdatedAt: lastUpdatedAt.getTime(),
    ...(scheduledStartTime ? { scheduledStartTime: scheduledStartTime.getTime() } : {}),
  };
}

export function fromSnapshot(s: InstanceSnapshot): WorkflowInstance {
  const { createdAt, lastUpdatedAt, scheduledStartTime, ...rest } = s;
  return {
    ...rest,
    createdAt: new Date(createdAt),
    lastUpdatedAt: new Date(lastUpdatedAt),
    ...(scheduledStartTime !== undefined ? { scheduledStartTime: new Date(scheduledStartTime) } : {}),
  };
}
