/**
 * A long-lived stream to a pluggable component (a pub/sub's PullMessages, an input binding's Read) that outlives
 * the component's process: when the stream ends or fails, it is opened again with backoff once the instance is
 * initialised again, so a restarted component resumes without restarting svcd. Subclasses open the stream and
 * handle its messages; this keeps the stream current, tracks the handler calls in flight and closes.
 */
import type * as grpc from '@grpc/grpc-js';
import { ensureError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import type { ComponentConnection } from './connection.js';

const FIRST_REOPEN_DELAY_MS = 100;
const MAX_REOPEN_DELAY_MS = 5000;

export abstract class ReopeningStream<Req, Res> {
  protected current: grpc.ClientDuplexStream<Req, Res> | undefined;
  readonly #inFlight = new Set<Promise<void>>();
  #closed = false;
  #reopenDelay = FIRST_REOPEN_DELAY_MS;
  #reopenTimer: NodeJS.Timeout | undefined;

  constructor(
    protected readonly conn: ComponentConnection,
    private readonly log: Logger,
    /** For the log line when the stream is lost: what this stream is. */
    private readonly what: Record<string, string>,
  ) {}

  /** Opens the stream (sends its first message, if any) and passes each message to `onMessage`. */
  protected abstract start(): grpc.ClientDuplexStream<Req, Res>;
  protected abstract onMessage(stream: grpc.ClientDuplexStream<Req, Res>, message: Res): void;

  async open(): Promise<void> {
    await this.conn.ready();
    const stream = this.start();
    this.current = stream;
    stream.on('data', (message: Res) => {
      this.#reopenDelay = FIRST_REOPEN_DELAY_MS;
      this.onMessage(stream, message);
    });
    stream.on('error', (err) => this.#lost(stream, ensureError(err).message));
    stream.on('end', () => this.#lost(stream, 'the component ended the stream'));
  }

  /** Writes an answer on `stream` if it is still the current one (a new stream gets redeliveries instead). */
  protected answer(stream: grpc.ClientDuplexStream<Req, Res>, message: Req): void {
    if (stream === this.current && stream.writable) stream.write(message);
  }

  protected get inFlightCount(): number {
    return this.#inFlight.size;
  }

  /** Tracks a handler call until it settles, then runs `after`. */
  protected track(call: Promise<void>, after: () => void): void {
    this.#inFlight.add(call);
    void call.finally(() => {
      this.#inFlight.delete(call);
      after();
    });
  }

  #lost(stream: grpc.ClientDuplexStream<Req, Res>, reason: string): void {
    if (stream !== this.current || this.#closed) return;
    this.current = undefined;
    this.#scheduleReopen(reason);
  }

  #scheduleReopen(reason: string): void {
    const delay = this.#reopenDelay;
    this.#reopenDelay = Math.min(delay * 2, MAX_REOPEN_DELAY_MS);
    this.log.warn({ ...this.what, reason, reopenInMs: delay }, 'pluggable component stream lost; opening it again');
    this.#reopenTimer = setTimeout(() => {
      this.open().catch((err: unknown) => {
        if (!this.#closed) this.#scheduleReopen(ensureError(err).message);
      });
    }, delay);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reopenTimer);
    const stream = this.current;
    this.current = undefined;
    stream?.end();
    stream?.cancel();
    await Promise.all([...this.#inFlight]);
  }
}
