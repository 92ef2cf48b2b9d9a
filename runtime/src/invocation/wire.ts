/**
 * The heads an invocation's stream carries between sidecars (internal/stream-service.ts): the call, then the
 * answer. Checked on arrival: the other side is a sidecar, but of another version perhaps.
 */
import type { Headers } from '../app/app-invocation.js';
import type { GrpcAppStatus } from '../app/grpc-app-proxy.js';
import { malformedRequest } from '../errors/catalogue.js';
import type { AppRef } from './target.js';

/** The stream methods of service invocation on the internal port: HTTP-shaped calls, and proxied gRPC calls. */
export const INVOKE_METHOD = 'Invoke';
export const PROXY_METHOD = 'Proxy';

export interface CallHead {
  readonly caller: AppRef;
  readonly callee: AppRef;
  readonly verb: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Headers;
}

/**
 * A proxied gRPC call: its method as `path` and its metadata as `headers`; `verb` is '' (access control matches a
 * gRPC call against every operation's verbs) and `query` is ''.
 */
export interface ProxyHead extends CallHead {
  /** What was left of the caller's deadline when its sidecar sent the call. */
  readonly timeoutMs?: number;
}

/** Undefined headers: the app answered with trailers only. Its status follows the messages, as the trailer. */
export interface ProxyAnswerHead {
  readonly headers?: Headers;
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

export function proxyHead(v: unknown): ProxyHead {
  const h = callHead(v) as ProxyHead;
  if (h.timeoutMs !== undefined && (typeof h.timeoutMs !== 'number' || !(h.timeoutMs >= 0))) throw malformedRequest('the calling sidecar sent a malformed deadline');
  return h;
}

export function proxyAnswerHead(v: unknown): ProxyAnswerHead {
  const h = v as ProxyAnswerHead;
  if (typeof h !== 'object' || h === null || (h.headers !== undefined && !isHeaders(h.headers))) throw malformedRequest('the target sidecar sent a malformed answer head');
  return h;
}

export function proxyTrailer(v: unknown): GrpcAppStatus {
  const t = v as Partial<GrpcAppStatus> | undefined;
  if (typeof t?.code !== 'number' || typeof t.details !== 'string' || !isHeaders(t.trailers)) throw malformedRequest('the target sidecar ended a proxied call without its status');
  return t as GrpcAppStatus;
}
