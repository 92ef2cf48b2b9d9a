import * as grpc from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import type { PubSubHandlers } from '@svc/proto/gen/svc/proto/components/v1/PubSub.js';
import type { PullMessagesRequest__Output } from '@svc/proto/gen/svc/proto/components/v1/PullMessagesRequest.js';
import type { PullMessagesResponse } from '@svc/proto/gen/svc/proto/components/v1/PullMessagesResponse.js';
import { plainError } from './grpc-errors.js';
import { Instances, unary } from './instances.js';

type Subscriber = grpc.ServerDuplexStream<PullMessagesRequest__Output, PullMessagesResponse>;

interface Message {
  readonly topic: string;
  readonly data: Buffer;
  readonly contentType: string;
  readonly metadata: Record<string, string>;
}

/**
 * One pub/sub instance: messages wait per topic until a subscriber stream takes them; each delivered message is
 * held until its ack, and a nack puts it back in the queue.
 */
class Broker {
  readonly #queued = new Map<string, Message[]>();
  readonly #subscribers = new Map<string, Subscriber[]>();
  readonly #unacked = new Map<string, Message>();

  publish(msg: Message): void {
    this.#queued.set(msg.topic, [...(this.#queued.get(msg.topic) ?? []), msg]);
    this.#drain(msg.topic);
  }

  subscribe(topic: string, stream: Subscriber): void {
    this.#subscribers.set(topic, [...(this.#subscribers.get(topic) ?? []), stream]);
    const leave = () => this.#subscribers.set(topic, (this.#subscribers.get(topic) ?? []).filter((s) => s !== stream));
    stream.on('end', leave);
    stream.on('error', leave);
    stream.on('cancelled', leave);
    this.#drain(topic);
  }

  ack(id: string, error: string | undefined): void {
    const msg = this.#unacked.get(id);
    this.#unacked.delete(id);
    if (msg && error !== undefined) this.publish(msg);
  }

  #drain(topic: string): void {
    const subs = this.#subscribers.get(topic) ?? [];
    const queue = this.#queued.get(topic) ?? [];
    let next = 0;
    while (subs.length > 0 && queue.length > 0) {
      const msg = queue.shift()!;
      const id = randomUUID();
      this.#unacked.set(id, msg);
      subs[next++ % subs.length]!.write({ id, data: msg.data, topicName: msg.topic, contentType: msg.contentType, metadata: msg.metadata });
    }
  }
}

export const PUBSUB_FEATURES: string[] = [];

export function pubSubService(): PubSubHandlers {
  const instances = new Instances<Broker>('pub/sub');
  return {
    Init: unary((call) => {
      instances.init(call, () => new Broker());
      return {};
    }),
    Features: unary(() => ({ features: PUBSUB_FEATURES })),
    Ping: unary(() => ({})),
    Publish: unary((call) => {
      const r = call.request;
      instances.of(call).publish({ topic: r.topic, data: r.data, contentType: r.contentType, metadata: r.metadata });
      return {};
    }),
    BulkPublish: unary((call) => {
      const broker = instances.of(call);
      for (const e of call.request.entries) broker.publish({ topic: call.request.topic, data: e.event, contentType: e.contentType, metadata: e.metadata });
      return { failedEntries: [] };
    }),
    PullMessages: (stream) => {
      let broker: Broker;
      try {
        broker = instances.of(stream);
      } catch (err) {
        stream.emit('error', err);
        return;
      }
      let subscribed = false;
      stream.on('data', (req: PullMessagesRequest__Output) => {
        if (!subscribed) {
          if (!req.topic?.name) {
            stream.emit('error', plainError(grpc.status.INVALID_ARGUMENT, 'the first message of PullMessages must name the topic'));
            return;
          }
          subscribed = true;
          broker.subscribe(req.topic.name, stream);
          return;
        }
        broker.ack(req.ackMessageId, req.ackError ? req.ackError.message : undefined);
      });
      stream.on('end', () => stream.end());
    },
    Pause: unary(() => {
      throw plainError(grpc.status.UNIMPLEMENTED, 'pause is not supported');
    }),
    Resume: unary(() => {
      throw plainError(grpc.status.UNIMPLEMENTED, 'resume is not supported');
    }),
  };
}
