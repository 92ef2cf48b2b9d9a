import * as grpc from '@grpc/grpc-js';
import { RuntimeError, ensureError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import { COMPONENT_MAX_REQUEST_BYTES, componentChannelOptions, unixTarget } from './channel-options.js';
import type { ReplyBudget } from './reply-budget.js';
import { UnaryTransport } from './unary-transport.js';

/** Metadata key naming the component instance on every call: one socket may serve many instances. */
export const INSTANCE_METADATA_KEY = 'x-component-instance';
/** Bound on every call, so a component that hangs cannot hang API requests forever. */
const CALL_TIMEOUT_MS = 30_000;

export interface ConnectionOptions {
  /** The Component's metadata.name. */
  readonly instance: string;
  /** The Component's spec.type, for messages. */
  readonly type: string;
  readonly socketPath: string;
  readonly pingIntervalMs: number;
  /** The largest reply accepted; each call reserves this much of `replyBudget` while it runs. */
  readonly maxReplyBytes: number;
  readonly replyBudget: ReplyBudget;
  readonly log: Logger;
}

/** What the API adapter on top of a connection does to set up and check its instance. */
export interface ConnectionHooks {
  /**
   * Init (and Features) for this instance. Run before the first call and again after every reconnection: a
   * restarted component lost its per-instance state.
   */
  readonly handshake: () => Promise<void>;
  /** The Ping of the component's API. */
  readonly ping: (deadline: Date) => Promise<unknown>;
}

type ClientCtor<C> = (new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions) => C) & { readonly service: grpc.ServiceDefinition };
/** Starts one unary call, e.g. `(md, o, cb) => client.Get(req, md, o, cb)`. */
export type UnaryInvoke<Res> = (metadata: grpc.Metadata, options: grpc.CallOptions, cb: grpc.requestCallback<Res>) => unknown;

/** A gRPC error from the component or from reaching it. */
export function isServiceError(err: unknown): err is grpc.ServiceError {
  return err instanceof Error && typeof (err as Partial<grpc.ServiceError>).code === 'number' && (err as Partial<grpc.ServiceError>).metadata instanceof grpc.Metadata;
}

/** The code of a failure to reach the component at all (as opposed to an answer it gave). */
function isUnreachable(err: unknown): boolean {
  return isServiceError(err) && (err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED);
}

/**
 * One component instance's channel to its socket. Calls fail fast while the component is down (no waitForReady);
 * losing the connection marks the instance for a new handshake, which runs before the next call (or at the next
 * ping), so a component that comes back on the same socket is initialised again without restarting svcd.
 */
export class ComponentConnection {
  /** For streams (pub/sub pulls, input bindings); unary calls go over `#unary`. */
  readonly #channel: grpc.Channel;
  readonly #unary: UnaryTransport;
  /** The instance key of every call: as metadata for streams (cloned per stream), as headers for unary calls. */
  readonly #metadata = new grpc.Metadata();
  readonly #headers: Readonly<Record<string, string>>;
  #needsHandshake = true;
  #handshakes = 0;
  #handshaking: Promise<void> | undefined;
  #hooks: ConnectionHooks | undefined;
  #health: { ok: boolean; reason?: string } = { ok: false, reason: 'not initialised yet' };
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(private readonly opts: ConnectionOptions) {
    this.#channel = new grpc.Channel(unixTarget(opts.socketPath), grpc.credentials.createInsecure(), componentChannelOptions(opts.maxReplyBytes));
    this.#unary = new UnaryTransport({
      socketPath: opts.socketPath,
      maxReplyBytes: opts.maxReplyBytes,
      maxRequestBytes: COMPONENT_MAX_REQUEST_BYTES,
      onConnectionLost: () => this.#connectionLost('unary connection closed'),
    });
    this.#metadata.set(INSTANCE_METADATA_KEY, opts.instance);
    this.#headers = { [INSTANCE_METADATA_KEY]: opts.instance };
  }

  get instance(): string {
    return this.opts.instance;
  }

  /**
   * A client of one service for this instance. Its unary methods (`(request, metadata, options, callback)`, the
   * only form svcd calls) go over the unary transport (unary-transport.ts); streaming methods are the grpc-js
   * client's own, on the channel.
   */
  client<C>(Ctor: ClientCtor<C>): C {
    const client = new Ctor(unixTarget(this.opts.socketPath), grpc.credentials.createInsecure(), { channelOverride: this.#channel });
    for (const [name, method] of Object.entries(Ctor.service)) {
      if (method.requestStream || method.responseStream) continue;
      const unary = (request: unknown, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<unknown>) =>
        this.#unary.call(method, request, this.#headersOf(metadata), deadlineMs(options.deadline), callback);
      Object.defineProperty(client, name, { value: unary });
    }
    return client;
  }

  /** The instance's own metadata (what `raw` passes) maps to headers made once; any other is converted. */
  #headersOf(metadata: grpc.Metadata): Readonly<Record<string, string>> {
    if (metadata === this.#metadata) return this.#headers;
    return Object.fromEntries(Object.entries(metadata.toHttp2Headers()).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]));
  }

  /** Metadata for a call to this instance: it names the instance (one socket may serve many). */
  metadata(): grpc.Metadata {
    return this.#metadata.clone();
  }

  /** First handshake, then health pings; throws when the component cannot be initialised. */
  async start(hooks: ConnectionHooks): Promise<void> {
    this.#hooks = hooks;
    await this.#ensureHandshake();
    this.#watchConnectivity(this.#channel.getConnectivityState(false));
    this.#timer = setInterval(() => void this.#checkHealth(), this.opts.pingIntervalMs);
    this.#timer.unref();
  }

  /** Resolves once the instance is initialised (again, after a lost connection): before opening a stream. */
  ready(): Promise<void> {
    return this.#ensureHandshake();
  }

  /** A unary call, for the handshake itself (no handshake first, no error mapping). */
  raw<Res>(invoke: UnaryInvoke<Res>, deadline?: Date): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      invoke(this.#metadata, { deadline: deadline ?? new Date(Date.now() + CALL_TIMEOUT_MS) }, (err, res) => {
        if (err) reject(err);
        else resolve(res as Res);
      });
    });
  }

  /**
   * A unary call on behalf of an API request: handshake first if the connection was lost; failures to reach the
   * component become ERR_COMPONENT_UNAVAILABLE naming it, other errors are left to the caller to map.
   */
  async call<Res>(invoke: UnaryInvoke<Res>): Promise<Res> {
    const release = await this.opts.replyBudget.reserve(this.opts.maxReplyBytes);
    try {
      await this.#ensureHandshake();
      return await this.raw(invoke);
    } catch (err) {
      if (isReplyTooLarge(err)) throw this.#replyTooLarge(err);
      if (!isUnreachable(err) && !isRuntimeUnavailable(err)) throw err;
      this.#markDown(err);
      throw this.#unavailable(err);
    } finally {
      release();
    }
  }

  #replyTooLarge(err: grpc.ServiceError): RuntimeError {
    return new RuntimeError(
      'ERR_COMPONENT_REPLY_TOO_LARGE',
      `pluggable component ${this.opts.instance} (${this.opts.type}) replied with more than ${this.opts.maxReplyBytes} bytes (${err.details}); ` +
        'raise --pluggable-max-reply-size (SVC_PLUGGABLE_MAX_REPLY_SIZE) if such replies are expected',
      { cause: err },
    );
  }

  #unavailable(err: unknown): RuntimeError {
    if (isRuntimeUnavailable(err)) return err;
    return new RuntimeError(
      'ERR_COMPONENT_UNAVAILABLE',
      `pluggable component ${this.opts.instance} (${this.opts.type}) is unavailable on socket ${this.opts.socketPath}: ${isServiceError(err) ? err.details.replace(/\s*Resolution note:\s*$/, '') : ensureError(err).message}`,
      { cause: err },
    );
  }

  health(): { ok: boolean; reason?: string } {
    return this.#health;
  }

  close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#channel.close();
    this.#unary.close();
    return Promise.resolve();
  }

  #ensureHandshake(): Promise<void> {
    if (!this.#needsHandshake) return Promise.resolve();
    this.#handshaking ??= (async () => {
      try {
        await this.#hooks?.handshake();
        this.#needsHandshake = false;
        if (this.#handshakes++ > 0) this.opts.log.info({ socket: this.opts.socketPath }, 'pluggable component reachable again; initialised it again');
        this.#setHealth({ ok: true });
      } catch (err) {
        if (isUnreachable(err)) throw this.#unavailable(err);
        throw err;
      } finally {
        this.#handshaking = undefined;
      }
    })();
    return this.#handshaking;
  }

  /** Any move away from READY means a new connection (maybe a new process): handshake again before using it. */
  #watchConnectivity(current: grpc.connectivityState): void {
    if (this.#closed) return;
    this.#channel.watchConnectivityState(current, Infinity, () => {
      if (this.#closed) return;
      const next = this.#channel.getConnectivityState(false);
      if (current === grpc.connectivityState.READY && next !== grpc.connectivityState.READY) this.#connectionLost(`stream channel ${grpc.connectivityState[next]}`);
      this.#watchConnectivity(next);
    });
  }

  #connectionLost(how: string): void {
    this.#needsHandshake = true;
    this.opts.log.debug({ how }, 'pluggable component connection lost');
  }

  async #checkHealth(): Promise<void> {
    try {
      if (this.#needsHandshake) return await this.#ensureHandshake();
      await this.#hooks?.ping(new Date(Date.now() + Math.min(this.opts.pingIntervalMs, CALL_TIMEOUT_MS)));
      this.#setHealth({ ok: true });
    } catch (err) {
      // Dapr never calls Ping, so some components leave it unimplemented: an answer still proves they are up.
      if (isServiceError(err) && err.code === grpc.status.UNIMPLEMENTED) this.#setHealth({ ok: true });
      else this.#markDown(err);
    }
  }

  #markDown(err: unknown): void {
    if (isUnreachable(err) || isRuntimeUnavailable(err)) this.#needsHandshake = true;
    const reason = isRuntimeUnavailable(err) ? err.message : `pluggable component ${this.opts.instance} (${this.opts.type}) is not healthy: ${ensureError(err).message}`;
    this.#setHealth({ ok: false, reason });
  }

  #setHealth(next: { ok: boolean; reason?: string }): void {
    if (this.#health.ok !== next.ok && !this.#closed) {
      if (next.ok) this.opts.log.info('pluggable component healthy');
      else this.opts.log.warn({ reason: next.reason }, 'pluggable component unhealthy');
    }
    this.#health = next;
  }
}

/** grpc-js refused a reply over the channel's `grpc.max_receive_message_length` as it arrived. */
function isReplyTooLarge(err: unknown): err is grpc.ServiceError {
  return isServiceError(err) && err.code === grpc.status.RESOURCE_EXHAUSTED && /larger than max/i.test(err.details);
}

/** A call's deadline as ms since the epoch (Infinity: none). */
function deadlineMs(deadline: grpc.Deadline | undefined): number {
  return deadline === undefined ? Infinity : deadline instanceof Date ? deadline.getTime() : deadline;
}

function isRuntimeUnavailable(err: unknown): err is RuntimeError {
  return err instanceof RuntimeError && err.code === 'ERR_COMPONENT_UNAVAILABLE';
}
