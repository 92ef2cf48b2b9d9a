import type { AppAnswer, AppCall, AppInvoker } from '../app/app-invocation.js';
import type { GrpcAppAnswer, GrpcAppCall, GrpcAppProxy } from '../app/grpc-app-proxy.js';
import { appChannelNil } from '../errors/catalogue.js';
import { isRuntimeError } from '../errors/runtime-error.js';
import { StreamUnreachableError } from '../internal/stream-client.js';
import type { Resiliency } from '../resiliency/resiliency.js';
import { appRequestHeaders, forwardedAnswerHeaders, forwardedGrpcAnswer } from './headers.js';
import { failureStatus, grpcStatusLabel, type InvocationMetrics } from './metrics.js';
import type { RemoteSidecars } from './remote-sidecars.js';
import { parseTarget, sameApp, type AppRef } from './target.js';

export interface InvocationApiOptions {
  readonly self: AppRef;
  /** This sidecar's own app; undefined without `--app-port`. */
  readonly app: AppInvoker | undefined;
  /** Its gRPC server, for proxied calls; undefined unless `--app-protocol grpc`. */
  readonly grpcApp: GrpcAppProxy | undefined;
  readonly remote: RemoteSidecars;
  readonly metrics: InvocationMetrics;
  /** The Resiliency policies in force (loaded at start). */
  readonly resiliency: () => Resiliency;
}

/** Verbs whose repetition does no harm: an answered call is retried only with one of these and no body. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** An answer with a 5xx status: a failure for the target's circuit breaker and retries, still given back as it is. */
class FailedAnswer extends Error {
  constructor(readonly answer: AppAnswer) {
    super(`the app answered ${answer.status}`);
  }
}

/**
 * Service invocation, transport-free: the HTTP route and the gRPC `InvokeService` call `invoke`, gRPC proxying
 * calls `proxy`. A call to this app itself goes straight to its app channel; any other goes to the target's sidecar
 * over the internal port, which checks who calls and hands it to its app.
 */
export class InvocationApi {
  constructor(private readonly o: InvocationApiOptions) {}

  get self(): AppRef {
    return this.o.self;
  }

  /** `target`: `<app-id>` or `<app-id>.<namespace>`. Resolves with the answer's head; its body streams after. */
  async invoke(target: string, call: AppCall, signal: AbortSignal): Promise<AppAnswer> {
    const ref = parseTarget(target, this.o.self.namespace);
    const started = performance.now();
    try {
      const answer = await this.#withPolicy(ref, call, signal);
      this.o.metrics.called(ref.appId, answer.status, (performance.now() - started) / 1000);
      return answer;
    } catch (err) {
      this.o.metrics.called(ref.appId, failureStatus(err), (performance.now() - started) / 1000);
      throw err;
    }
  }

  /**
   * gRPC proxying: a call for any method of the target's gRPC app, messages as they are. Resolves with the app's
   * response metadata; its messages stream after, then its status.
   */
  async proxy(target: string, call: GrpcAppCall, signal: AbortSignal): Promise<GrpcAppAnswer> {
    const ref = parseTarget(target, this.o.self.namespace);
    const started = performance.now();
    try {
      const answer = await this.#proxyRoute(ref, call, signal);
      const seconds = (performance.now() - started) / 1000;
      answer.status.then(
        (s) => this.o.metrics.called(ref.appId, grpcStatusLabel(s.code), seconds),
        (err: unknown) => this.o.metrics.called(ref.appId, failureStatus(err), seconds),
      );
      return answer;
    } catch (err) {
      this.o.metrics.called(ref.appId, failureStatus(err), (performance.now() - started) / 1000);
      throw err;
    }
  }

  /**
   * The target's Resiliency policy around the call (docs/invocation.md, "Resiliency"). A call is tried again only
   * when it provably did not reach the target (no sidecar connection), or it was answered or timed out and
   * repeating it is harmless: an idempotent verb without a body (a streamed body cannot be sent twice).
   */
  async #withPolicy(ref: AppRef, call: AppCall, signal: AbortSignal): Promise<AppAnswer> {
    const policy = this.o.resiliency().forApp(ref.appId);
    // No policy for the target: the call once, as it is (no attempt closures, nothing to retry).
    if (policy.isEmpty) return this.#route(ref, call, signal);
    const replayable = call.body === undefined && IDEMPOTENT.has(call.verb);
    let previous: FailedAnswer | undefined;
    try {
      return await policy.run(
        async (attempt) => {
          previous?.answer.body.destroy();
          const answer = await this.#route(ref, call, attempt);
          if (answer.status >= 500) throw (previous = new FailedAnswer(answer));
          return answer;
        },
        {
          signal,
          retryable: (err) =>
            err instanceof StreamUnreachableError ||
            (replayable && (err instanceof FailedAnswer ? policy.retriesStatus('http', err.answer.status) : isRuntimeError(err, 'ERR_RESILIENCY_TIMEOUT'))),
        },
      );
    } catch (err) {
      if (err instanceof FailedAnswer) return err.answer;
      previous?.answer.body.destroy();
      throw err;
    }
  }

  #route(ref: AppRef, call: AppCall, signal: AbortSignal): Promise<AppAnswer> {
    if (!sameApp(ref, this.o.self)) return this.o.remote.call(ref, call, signal);
    if (!this.o.app) return Promise.reject(appChannelNil(ref.appId, 'invocation'));
    const app = this.o.app;
    return app.invoke({ ...call, headers: appRequestHeaders(call.headers, ref, ref) }, signal).then((a) => ({ ...a, headers: forwardedAnswerHeaders(a.headers) }));
  }

  async #proxyRoute(ref: AppRef, call: GrpcAppCall, signal: AbortSignal): Promise<GrpcAppAnswer> {
    if (!sameApp(ref, this.o.self)) return this.o.remote.proxy(ref, call, signal);
    if (!this.o.grpcApp) throw appChannelNil(ref.appId, 'grpc-proxy');
    return forwardedGrpcAnswer(await this.o.grpcApp.call({ ...call, headers: appRequestHeaders(call.headers, ref, ref) }, signal));
  }
}
