/**
 * What every unary gRPC method of svcd's API port goes through (the runtime API and the Durable Task service):
 * the API token, the answer to a request that did not decode, and the mapping of failures to a status with the
 * catalogue's code.
 */
import * as grpc from '@grpc/grpc-js';
import { context } from '@opentelemetry/api';
import { ensureError, isRuntimeError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import { authorized, serviceError, UNAUTHENTICATED } from './call-guard.js';
import { malformedRequestError } from './malformed-request.js';
import { rpcServerSpan } from './server-spans.js';

/**
 * A method's body: the decoded request, the call's cancellation as a signal, the call (for its metadata).
 * `cancelled()` makes the signal only when a body asks for it (one that waits): an AbortController per call was a
 * tenth of svcd's CPU in a 100,000-activity fan-out (one CompleteActivityTask call per result).
 */
export type UnaryBody<Req, Res> = (req: Req, cancelled: () => AbortSignal, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>;

export interface UnaryOptions {
  readonly apiToken: string | undefined;
  /** Where a failure without a catalogue code (a bug, or a dependency's own error) is logged, with the method. */
  readonly log?: Logger;
}

export function unary<Req, Res>(method: string, body: UnaryBody<Req, Res>, opts: UnaryOptions): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    if (!authorized(call, opts.apiToken)) {
      callback(UNAUTHENTICATED);
      return;
    }
    const malformed = malformedRequestError(call.request);
    if (malformed) {
      callback(serviceError(malformed));
      return;
    }
    let abort: AbortController | undefined;
    let answered = false;
    const cancelled = (): AbortSignal => {
      if (!abort) {
        const controller = (abort = new AbortController());
        if (call.cancelled) controller.abort(new Error('call cancelled'));
        // grpc-js reports 'cancelled' after every call it answered as well: aborting then ran the signal's
        // listeners and its dependents' (AbortSignal.any) for nothing, ~20 µs of every answered wait.
        else
          call.on('cancelled', () => {
            if (!answered) controller.abort(new Error('call cancelled'));
          });
      }
      return abort.signal;
    };
    const span = rpcServerSpan(call);
    // A body that throws before its first await answers as one whose promise rejects: grpc-js answers a throw out
    // of a method UNKNOWN "Unknown error", without the error's code or message.
    const run = () => new Promise<Res>((resolve) => resolve(body(call.request, cancelled, call)));
    (span ? context.with(span.context, run) : run()).then(
      (res) => {
        answered = true;
        span?.end(grpc.status.OK);
        callback(null, res);
      },
      (err: unknown) => {
        answered = true;
        const status = serviceError(err);
        span?.end(status.code ?? grpc.status.UNKNOWN, err);
        if (call.cancelled || abort?.signal.aborted) return;
        if (!isRuntimeError(err)) opts.log?.warn({ rpc: method, err: ensureError(err).message }, 'gRPC call failed');
        callback(status);
      },
    );
  };
}
