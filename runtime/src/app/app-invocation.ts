/**
 * Service invocation's last hop: a call handed to this sidecar's app (over HTTP or gRPC) and its answer, bodies as
 * streams. The transports above and the invocation building block speak these types.
 */
import type { Readable } from 'node:stream';

export type Headers = Record<string, string | string[]>;

export interface AppCall {
  /** HTTP method, upper case. */
  readonly verb: string;
  /** The method path as the caller wrote it (still percent-encoded), with its leading slash. */
  readonly path: string;
  /** The query string without its `?`; empty for none. */
  readonly query: string;
  readonly headers: Headers;
  /** Undefined: no body. */
  readonly body: Readable | undefined;
}

export interface AppAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Readable;
}

export interface AppInvoker {
  /** Resolves with the answer's head; its body streams after. `signal` aborts the call (and the body). */
  invoke(call: AppCall, signal: AbortSignal): Promise<AppAnswer>;
}
