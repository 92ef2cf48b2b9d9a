import type { AppInvoker } from '../app/app-invocation.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import type { StreamCall, StreamHandler } from '../internal/stream-server.js';
import type { CallerIdentity } from './caller-identity.js';
import { appRequestHeaders, forwardedAnswerHeaders } from './headers.js';
import type { InvocationMetrics } from './metrics.js';
import { sameApp, type AppRef } from './target.js';
import { callHead, type AnswerHead, type CallHead } from './wire.js';

/** Says whether `caller` may make this call; throws ERR_PERMISSION_DENIED when not. */
export type AccessCheck = (caller: AppRef, head: CallHead) => void;

export interface InboundOptions {
  readonly self: AppRef;
  /** Undefined: this app has no channel (no `--app-port`). */
  readonly app: AppInvoker | undefined;
  readonly identity: CallerIdentity;
  readonly access: AccessCheck;
  readonly metrics: InvocationMetrics;
  readonly log: Logger;
}

/**
 * The receiving side of service invocation, on the internal port: authenticates the calling sidecar, checks that
 * the call is for this app, applies access control, then hands the call to the app and streams its answer back.
 */
export function inboundInvocation(o: InboundOptions): StreamHandler {
  return async (call: StreamCall) => {
    const head = callHead(call.head);
    let caller: AppRef;
    try {
      caller = await o.identity.authenticate((name) => call.metadata.get(name)[0]?.toString(), head.caller);
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
      if (!o.app) throw new RuntimeError('ERR_APP_CHANNEL_NIL', `app ${o.self.appId} has no app channel (svcd runs without --app-port): it cannot be invoked`);
      const answer = await o.app.invoke({ verb: head.verb, path: head.path, query: head.query, headers: appRequestHeaders(head.headers, caller, o.self), body: call.body }, call.signal);
      o.metrics.served(caller.appId, answer.status);
      const out: AnswerHead = { status: answer.status, headers: forwardedAnswerHeaders(answer.headers) };
      return { head: out, body: answer.body };
    } catch (err) {
      o.metrics.served(caller.appId, err instanceof RuntimeError ? err.code : 'ERROR');
      throw err;
    }
  };
}
