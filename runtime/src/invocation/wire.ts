/**
 * The heads an invocation's stream carries between sidecars (internal/stream-service.ts): the call, then the
 * answer. Checked on arrival: the other side is a sidecar, but of another version perhaps.
 */
import type { Headers } from '../app/app-invocation.js';
import { malformedRequest } from '../errors/catalogue.js';
import type { AppRef } from './target.js';

/** The stream method of service invocation on the internal port. */
export const INVOKE_METHOD = 'Invoke';

export interface CallHead {
  readonly caller: AppRef;
  readonly callee: AppRef;
  readonly verb: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Headers;
}

export interface AnswerHead {
  readonly status: number;
  readonly headers: Headers;
}

const isRef = (v: unknown): v is AppRef => typeof v === 'object' && v !== null && typeof (v as AppRef).appId === 'string' && typeof (v as AppRef).namespace === 'string';
const isHeaders = (v: unknown): v is Headers =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string' || (Array.isArray(x) && x.every((y) => typeof y === 'string')));

export function callHead(v: unknown): CallHead {
  const h = v as Partial<CallHead>;
  if (!isRef(h.caller) || !isRef(h.callee) || typeof h.verb !== 'string' || typeof h.path !== 'string' || typeof h.query !== 'string' || !isHeaders(h.headers)) {
    throw malformedRequest('the calling sidecar sent a malformed invocation head');
  }
  return h as CallHead;
}

export function answerHead(v: unknown): AnswerHead {
  const h = v as Partial<AnswerHead>;
  if (typeof h.status !== 'number' || !isHeaders(h.headers)) throw malformedRequest('the target sidecar sent a malformed answer head');
  return h as AnswerHead;
}
