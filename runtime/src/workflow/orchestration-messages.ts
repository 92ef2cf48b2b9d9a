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
  // The head without the actions: an undefined property is left out of JSON (a rest pattern is V8's slow path).
  return encodeJsonLines({ ...p, actions: undefined }, p.actions);
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

/**
 * Both conversions copy with a spread and overwrite the dates: an object rest pattern (`{ createdAt, ...rest }`)
 * takes V8's generic path, about 30 times slower, and each answered wait converts twice (2 % of svcd's CPU in a
 * burst of 5,000 timer workflows, each waited for). The copy keeps the instance's keys: `scheduledStartTime` only
 * when it has one.
 */
export function toSnapshot(w: WorkflowInstance): InstanceSnapshot {
  const s: Dated<number | Date> = { ...w, createdAt: w.createdAt.getTime(), lastUpdatedAt: w.lastUpdatedAt.getTime() };
  if (w.scheduledStartTime) s.scheduledStartTime = w.scheduledStartTime.getTime();
  return s as InstanceSnapshot;
}

export function fromSnapshot(s: InstanceSnapshot): WorkflowInstance {
  const w: Dated<number | Date> = { ...s, createdAt: new Date(s.createdAt), lastUpdatedAt: new Date(s.lastUpdatedAt) };
  if (s.scheduledStartTime !== undefined) w.scheduledStartTime = new Date(s.scheduledStartTime);
  return w as WorkflowInstance;
}

/** An instance or its snapshot while one is made from the other. */
type Dated<T> = Omit<WorkflowInstance, 'createdAt' | 'lastUpdatedAt' | 'scheduledStartTime'> & { createdAt: T; lastUpdatedAt: T; scheduledStartTime?: T };
