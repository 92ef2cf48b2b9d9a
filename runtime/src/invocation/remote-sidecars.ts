import type { Readable } from 'node:stream';
import type { AppAnswer, AppCall } from '../app/app-invocation.js';
import type { GrpcAppAnswer, GrpcAppCall } from '../app/grpc-app-proxy.js';
import type { NameResolver } from '../components/contracts/name-resolution.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { StreamUnreachableError, type StreamClients, type StreamReply } from '../internal/stream-client.js';
import { forwardedAnswerHeaders, forwardedGrpcAnswer, forwardedRequestHeaders } from './headers.js';
import type { AppRef } from './target.js';
import { tracingEnabled } from '../tracing/enabled.js';
import { injectIntoHeaders } from '../tracing/propagation.js';
import { inSpan } from '../tracing/spans.js';
import { callerSpan } from './invocation-spans.js';
import { answerHead, INVOKE_METHOD, PROXY_METHOD, proxyAnswerHead, proxyTrailer, type CallHead, type ProxyHead } from './wire.js';

/** Addresses found are trusted this long; an address that could not be reached is dropped at once. */
const RESOLVED_FOR_MS = 1_000;
const CONNECT_TIMEOUT_MS = 3_000;

export interface RemoteSidecarsOptions {
  readonly self: AppRef;
  readonly resolver: () => NameResolver;
  readonly clients: StreamClients;
  /** What this sidecar presents to the others. */
  readonly credentials: () => Promise<Readonly<Record<string, string>>>;
}

/**
 * Calls to the sidecars of other apps: resolves the target's sidecars, takes them in turn (round robin), and tries
 * the next when one cannot be reached (nothing ran there, the body is still unread). Once connected, the call is
 * that sidecar's: a failure after that is the caller's to see, never repeated here.
 */
export class RemoteSidecars {
  readonly #resolved = new Map<string, { addresses: string[]; at: number; next: number }>();

  constructor(private readonly o: RemoteSidecarsOptions) {}

  async call(target: AppRef, call: AppCall, signal: AbortSignal): Promise<AppAnswer> {
    const head: CallHead = { caller: this.o.self, callee: target, verb: call.verb, path: call.path, query: call.query, headers: forwardedRequestHeaders(call.headers) };
    const reply = await this.#send(target, INVOKE_METHOD, head, call.body, signal);
    const answer = answerHead(reply.head);
    return { status: answer.status, headers: forwardedAnswerHeaders(answer.headers), body: reply.body };
  }

  /** A gRPC call for the target's app, proxied: its status comes from the target's sidecar after the messages. */
  async proxy(target: AppRef, call: GrpcAppCall, signal: AbortSignal): Promise<GrpcAppAnswer> {
    const head: ProxyHead = {
      caller: this.o.self,
      callee: target,
      verb: '',
      path: call.path,
      query: '',
      headers: forwardedRequestHeaders(call.headers),
      ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }),
    };
    const reply = await this.#send(target, PROXY_METHOD, head, call.messages, signal);
    return forwardedGrpcAnswer({ headers: proxyAnswerHead(reply.head).headers, messages: reply.body, status: reply.trailer.then(proxyTrailer) });
  }

  /** In a CLIENT span when svcd traces; the call's headers then carry that span's `traceparent`. */
  #send(target: AppRef, method: string, head: CallHead, body: Readable | undefined, signal: AbortSignal): Promise<StreamReply> {
    if (!tracingEnabled()) return this.#sendToAny(target, method, head, body, signal);
    return inSpan(callerSpan(method, this.o.self, target, head.path), () => {
      injectIntoHeaders(head.headers);
      return this.#sendToAny(target, method, head, body, signal);
    });
  }

  async #sendToAny(target: AppRef, method: string, head: CallHead, body: Readable | undefined, signal: AbortSignal): Promise<StreamReply> {
    // Made only once a sidecar could not be reached: most calls reach the first one picked.
    let tried: Set<string> | undefined;
    for (;;) {
      const address = await this.#pick(target, tried);
      try {
        return await this.o.clients.call(address, method, head, body, { metadata: await this.o.credentials(), connectTimeoutMs: CONNECT_TIMEOUT_MS, signal });
      } catch (err) {
        if (!(err instanceof StreamUnreachableError)) throw err;
        (tried ??= new Set()).add(address);
        this.#drop(target, address);
        this.o.clients.forget(address);
        if (!(await this.#hasUntried(target, tried))) throw err;
      }
    }
  }

  /** The targets resolved lately and their addresses (for /v1.0/metadata). */
  resolvedPeers(): { appId: string; namespace: string; addresses: string[] }[] {
    return [...this.#resolved].map(([key, r]) => {
      const [appId, namespace] = key.split('\n') as [string, string];
      return { appId, namespace, addresses: r.addresses };
    });
  }

  /** The target's addresses, resolved again once they are older than RESOLVED_FOR_MS (or none were found). */
  #addresses(target: AppRef): { addresses: string[]; next: number } | Promise<{ addresses: string[]; next: number }> {
    const cached = this.#resolved.get(`${target.appId}\n${target.namespace}`);
    if (cached && Date.now() - cached.at < RESOLVED_FOR_MS && cached.addresses.length > 0) return cached;
    return this.#resolve(target, cached?.next ?? 0);
  }

  async #resolve(target: AppRef, next: number): Promise<{ addresses: string[]; next: number }> {
    let addresses: string[];
    try {
      addresses = [...(await this.o.resolver().resolve(target.appId, target.namespace))];
    } catch (err) {
      throw new RuntimeError('ERR_NAME_RESOLUTION', `name resolution (${this.o.resolver().kind}) failed for app ${target.appId}: ${(err as Error).message}`, { cause: err });
    }
    const entry = { addresses, at: Date.now(), next };
    this.#resolved.set(`${target.appId}\n${target.namespace}`, entry);
    return entry;
  }

  /** The next of the target's sidecars in turn, of those not tried yet for this call. */
  async #pick(target: AppRef, tried: ReadonlySet<string> | undefined): Promise<string> {
    const entry = await this.#addresses(target);
    const untried = tried ? entry.addresses.filter((a) => !tried.has(a)) : entry.addresses;
    if (untried.length === 0) {
      throw new RuntimeError('ERR_DIRECT_INVOKE_APP_NOT_FOUND', `app ${target.appId} not found in namespace ${target.namespace}: no live sidecar (name resolution: ${this.o.resolver().kind})`);
    }
    entry.next = (entry.next + 1) % untried.length;
    return untried[entry.next]!;
  }

  async #hasUntried(target: AppRef, tried: ReadonlySet<string>): Promise<boolean> {
    return (await this.#addresses(target)).addresses.some((a) => !tried.has(a));
  }

  #drop(target: AppRef, address: string): void {
    const entry = this.#resolved.get(`${target.appId}\n${target.namespace}`);
    if (entry) entry.addresses = entry.addresses.filter((a) => a !== address);
  }
}
