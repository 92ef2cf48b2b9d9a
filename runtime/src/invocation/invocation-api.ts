import type { AppAnswer, AppCall, AppInvoker } from '../app/app-invocation.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { appRequestHeaders, forwardedAnswerHeaders } from './headers.js';
import type { InvocationMetrics } from './metrics.js';
import type { RemoteSidecars } from './remote-sidecars.js';
import { parseTarget, sameApp, type AppRef } from './target.js';

export interface InvocationApiOptions {
  readonly self: AppRef;
  /** This sidecar's own app; undefined without `--app-port`. */
  readonly app: AppInvoker | undefined;
  readonly remote: RemoteSidecars;
  readonly metrics: InvocationMetrics;
}

/**
 * Service invocation, transport-free: the HTTP route, the gRPC `InvokeService` and gRPC proxying all call
 * `invoke`. A call to this app itself goes straight to its app channel; any other goes to the target's sidecar
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
      this.o.metrics.called(ref.appId, err instanceof RuntimeError ? err.code : 'ERROR', (performance.now() - started) / 1000);
      throw err;
    }
  }

  #route(ref: AppRef, call: AppCall, signal: AbortSignal): Promise<AppAnswer> {
    if (!sameApp(ref, this.o.self)) return this.o.remote.call(ref, call, signal);
    if (!this.o.app) return Promise.reject(new RuntimeError('ERR_APP_CHANNEL_NIL', `app ${ref.appId} has no app channel (svcd runs without --app-port): it cannot be invoked`));
    const app = this.o.app;
    return app.invoke({ ...call, headers: appRequestHeaders(call.headers, ref, ref) }, signal).then((a) => ({ ...a, headers: forwardedAnswerHeaders(a.headers) }));
  }
}
