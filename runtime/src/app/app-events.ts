/**
 * What svcd hands the app besides actor calls — its programmatic subscriptions, topic events (one or a bulk) and
 * input binding events — whatever the app channel's protocol (`--app-protocol http` or `grpc`). The pub/sub and
 * bindings hosts use only this interface.
 */
import type { CloudEvent } from './cloudevents.js';

export type DeliveryOutcome = 'success' | 'retry' | 'drop';

export interface DeliveryResult {
  readonly outcome: DeliveryOutcome;
  /** Why, for logs: the status, the app's word, the error. */
  readonly detail: string;
}

/** Where a topic event is going: the subscription's pub/sub and topic, and the route the rules chose. */
export interface TopicRoute {
  readonly pubsubName: string;
  readonly topic: string;
  readonly path: string;
}

/** One entry of a bulk delivery: the CloudEvent, or with `rawPayload` the message's bytes. */
export interface BulkEntry {
  readonly entryId: string;
  readonly event: CloudEvent | Buffer;
}

/** An input binding event as the app receives it. */
export interface BindingEvent {
  readonly data: Buffer;
  readonly contentType?: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** A job's payload as the app receives it: an Any (a JSON job scheduled over HTTP holds a google.protobuf.Value). */
export interface JobPayload {
  readonly typeUrl: string;
  readonly value: Buffer;
}

/**
 * A job firing's fate: taken (2xx / OK); failed (the app answered otherwise, or did not answer in time: it may have
 * seen it); unreachable (no connection: the app never saw it).
 */
export type JobDeliveryResult = { readonly outcome: 'taken' } | { readonly outcome: 'failed' | 'unreachable'; readonly reason: string };

/** How a subscription's events reach their receiver: the app channel, or a gRPC streaming subscription. */
export type TopicDelivery = Pick<AppEvents, 'deliver' | 'deliverBulk'>;

export interface AppEvents {
  /**
   * The app's programmatic subscriptions, as `/dapr/subscribe` entries (the gRPC answer is converted to them),
   * waiting up to `waitMs` for the app to listen. An app that has none, or cannot say, gives [] (logged).
   */
  subscriptions(waitMs: number): Promise<{ entries: unknown[]; source: string }>;
  /**
   * One attempt. `signal` cancels it (svcd stopping and the grace period over): the call to the app is abandoned
   * and the result is a retry, so the message stays with the broker.
   */
  deliver(route: TopicRoute, event: CloudEvent, timeoutMs: number, signal: AbortSignal): Promise<DeliveryResult>;
  /** The outcome of every entry; entries the app did not answer for are retried. `signal` as for `deliver`. */
  deliverBulk(route: TopicRoute, entries: readonly BulkEntry[], timeoutMs: number, signal: AbortSignal): Promise<Map<string, DeliveryResult>>;
  /** Does the app take events of this input binding? Unsure (not listening yet) counts as yes. */
  listensForBinding(name: string, path: string): Promise<boolean>;
  /** One attempt: the app's answer body when it took the event, else why not. */
  deliverBinding(name: string, path: string, event: BindingEvent, timeoutMs: number): Promise<{ taken: true; reply: Buffer } | { taken: false; reason: string }>;
  /** One attempt at a job's firing: HTTP `POST /job/<name>`, gRPC `OnJobEvent` (`OnJobEventAlpha1` for older SDKs). */
  deliverJob(name: string, data: JobPayload | undefined, timeoutMs: number): Promise<JobDeliveryResult>;
  /** One health probe: HTTP GET of the health path answering 2xx, or gRPC AppCallbackHealthCheck answering OK. */
  healthCheck(path: string, timeoutMs: number): Promise<boolean>;
  /** Releases a connection the channel keeps (gRPC). */
  close?(): void;
}

const STATUS_OUTCOMES: Record<string, DeliveryOutcome> = { SUCCESS: 'success', RETRY: 'retry', DROP: 'drop' };

/** The outcome of the app's SUCCESS / RETRY / DROP (any case), or undefined for anything else. */
export function statusOutcome(status: unknown): DeliveryOutcome | undefined {
  return typeof status === 'string' ? STATUS_OUTCOMES[status.toUpperCase()] : undefined;
}
