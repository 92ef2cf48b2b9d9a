import type { AppInvoker } from '../app/app-invocation.js';
import type { GrpcAppProxy } from '../app/grpc-app-proxy.js';
import { appChannelNil } from '../errors/catalogue.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import type { StreamAnswer, StreamCall, StreamHandler } from '../internal/stream-server.js';
import type { CallerIdentity } from './caller-identity.js';
import { appRequestHeaders, forwardedAnswerHeaders, forwardedGrpcAnswer } from './headers.js';
import { failureStatus, grpcStatusLabel, type InvocationMetrics } from './metrics.js';
import { sameApp, type AppRef } from './target.js';
import { tracingEnabled } from '../tracing/enabled.js';
import { inSpan } from '../tracing/spans.js';
import { calleeSpan } from './invocation-spans.js';
import { callHead, proxyHead, type AnswerHead, type CallHead, type ProxyAnswerHead, type ProxyHead } from './wire.js';

/** Says whether `caller` may make this call; throws ERR_PERMISSION_DENIED when not. */
export type AccessCheck = (caller: AppRef, head: CallHead) => void;

export interface InboundOptions {
  readonly self: AppRef;
  /** Undefined: this app has no channel (no `--app-port`). */
  readonly app: AppInvoker | undefined;
  /** Undefined: this app has no gRPC channel (no `--app-port`, or `--app-protocol http`). */
  readonly grpcApp: GrpcAppProxy | undefined;
  readonly identity: CallerIdentity;
  readonly access: AccessCheck;
  readonly metrics: InvocationMetrics;
  readonly log: Logger;
}

/** An admitted call, served: the answer, and the status counted for it once known. */
type Serve<H extends CallHead> = (caller: AppRef, head: H, call: StreamCall) => Promise<{ answer: StreamAnswer; status: Promise<number | string> }>;

/**
 * The receiving side of service invocation, on the internal port, for both stream methods: authenticates the
 * calling sidecar, checks that the call is for this app, applies access control, then lets `serve` hand the call
 * to the app and stream its answer back.
 */
function inbound<H extends CallHead>(o: InboundOptions, method: string, readHead: (v: unknown) => H, serve: Serve<H>): StreamHandler {
  return async (call: StreamCall) => {
    const head = readHead(call.head);
    if (!tracingEnabled()) return admit(o, head, call, serve);
    return inSpan(calleeSpan(method, head.caller, o.self, head.path, head.headers), () => admit(o, head, call, serve));
  };
}

async function admit<H extends CallHead>(o: InboundOptions, head: H, call: StreamCall, serve: Serve<H>): Promise<StreamAnswer> {
  let caller: AppRef;
  try {
    caller = await o.identity.authenticate(call.header, head.caller);
  } catch (err) {
    o.log.warn({ claimedCaller: head.caller.appId, err: (err as Error).message }, 'invocation refused: caller not authenticated');
    throw err;
  }
  if (!sameApp(head.callee, o.self)) {
    // A stale resolution: the address now belongs to another app. The caller's sidecar tries no further.
    throw new RuntimeError('ERR_DIRECT_INVOKE_APP_NOT_FOUND', `this sidecar serves app ${o.self.appId} in namespace ${o.self.namespace}, not ${head.callee.appId} in ${head.callee.namespace}`);
  }
  try {
    o.access(caller, head);
    const served = await serve(caller, head, call);
    served.status.then(
      (status) => o.metrics.served(caller.appId, status),
      (err: unknown) => o.metrics.served(caller.appId, failureStatus(err)),
    );
    return served.answer;
  } catch (err) {
    o.metrics.served(caller.appId, failureStatus(err));
    throw err;
  }
}

/** `Invoke`: an HTTP-shaped call, handed to the app's channel (HTTP or gRPC `OnInvoke`). */
export function inboundInvocation(o: InboundOptions): StreamHandler {
  return inbound(o, 'Invoke', callHead, async (caller, head, call) => {
    if (!o.app) throw appChannelNil(o.self.appId, 'invocation');
    const answer = await o.app.invoke({ verb: head.verb, path: head.path, query: head.query, headers: appRequestHeaders(head.headers, caller, o.self), body: call.body }, call.signal);
    const out: AnswerHead = { status: answer.status, headers: forwardedAnswerHeaders(answer.headers) };
    return { answer: { head: out, body: answer.body }, status: Promise.resolve(answer.status) };
  });
}

/** `Proxy`: a gRPC call for any method of the app's gRPC server, messages as they are; its status is the trailer. */
export function inboundProxy(o: InboundOptions): StreamHandler {
  return inbound<ProxyHead>(o, 'Proxy', proxyHead, async (caller, head, call) => {
    if (!o.grpcApp) throw appChannelNil(o.self.appId, 'grpc-proxy');
    const appCall = { path: head.path, headers: appRequestHeaders(head.headers, caller, o.self), messages: call.body, ...(head.timeoutMs === undefined ? {} : { timeoutMs: head.timeoutMs }) };
    const answer = forwardedGrpcAnswer(await o.grpcApp.call(appCall, call.signal));
    const out: ProxyAnswerHead = answer.headers ? { headers: answer.headers } : {};
    return { answer: { head: out, body: answer.messages, trailer: () => answer.status }, status: answer.status.then((s) => grpcStatusLabel(s.code)) };
  });
}
