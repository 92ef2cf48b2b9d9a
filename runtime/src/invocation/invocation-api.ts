import type { AppAnswer, AppCall, AppInvoker } from '../app/app-invocation.js';
import type { GrpcAppAnswer, GrpcAppCall, GrpcAppProxy } from '../app/grpc-app-proxy.js';
import { appChannelNil } from '../errors/catalogue.js';
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
      const answer = await this.#route(ref, call, signal);
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
