/**
 * The pub/sub building block's one interface: built-in brokers and pluggable components implement it, the
 * publish API and the subscription runner use only it.
 */
import type { Component } from '../registry.js';

export interface PublishRequest {
  readonly topic: string;
  /** The bytes the subscribers receive: a CloudEvent's JSON, or the raw payload (`rawPayload`). */
  readonly data: Buffer;
  readonly contentType: string;
  /** Request metadata (`metadata.<k>` query parameters), e.g. `ttlInSeconds`; components read what they know. */
  readonly metadata: Readonly<Record<string, string>>;
}

export interface ReceivedMessage {
  /** The broker's id of the message (stream entry id, sequence number), for logs and acks; may be empty. */
  readonly id: string;
  readonly topic: string;
  readonly data: Buffer;
  readonly contentType?: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/**
 * Called for every message of a subscription. Resolves: the message is done and the component acknowledges it.
 * Rejects: not done; the component keeps it and redelivers it later (its own redelivery rules). A component
 * never has more than the subscription's `maxConcurrency` handler calls outstanding.
 */
export type MessageHandler = (msg: ReceivedMessage) => Promise<void>;

export interface SubscribeRequest {
  readonly topic: string;
  /** The subscription's metadata (and the component's consumer group, `consumerID`, defaulting to the app id). */
  readonly metadata: Readonly<Record<string, string>>;
  readonly maxConcurrency: number;
}

export interface TopicSubscription {
  /** Stops taking messages and waits for the handler calls in flight; unfinished messages stay with the broker. */
  close(): Promise<void>;
}

export interface BulkPublishMessage {
  readonly entryId: string;
  readonly data: Buffer;
  readonly contentType: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** An entry of a bulk publish the broker did not take, and why. */
export interface FailedEntry {
  readonly entryId: string;
  readonly error: string;
}

export interface PubSub extends Component {
  /** Capabilities for `/v1.0/metadata` (e.g. `MESSAGE_TTL`, `BULK_PUBLISH`). */
  features(): readonly string[];
  /** Resolves once the broker has the message (for durable brokers: stored). */
  publish(req: PublishRequest): Promise<void>;
  subscribe(req: SubscribeRequest, handler: MessageHandler): Promise<TopicSubscription>;
  /**
   * Several messages to one topic in one call, for brokers that have such a call (else the publish API publishes
   * the entries one by one). Resolves with the entries not taken; rejects when none was.
   */
  bulkPublish?(topic: string, entries: readonly BulkPublishMessage[], metadata: Readonly<Record<string, string>>): Promise<FailedEntry[]>;
}

export const isPubSub = (c: Component): c is PubSub => typeof (c as Partial<PubSub>).publish === 'function' && typeof (c as Partial<PubSub>).subscribe === 'function';
