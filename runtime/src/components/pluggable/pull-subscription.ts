/**
 * One topic subscription on a pluggable pub/sub: a `PullMessages` stream whose first message names the topic; each
 * message the component sends goes to the handler, and its outcome goes back as an ack (with `ack_error` when the
 * handler failed, so the component redelivers it). At most `maxConcurrency` messages are in the handler at once (the
 * stream is paused meanwhile). Opened again after a component restart (`ReopeningStream`).
 */
import type * as grpc from '@grpc/grpc-js';
import type { PubSubClient } from '@svc/proto/gen/svc/proto/components/v1/PubSub.js';
import type { PullMessagesRequest } from '@svc/proto/gen/svc/proto/components/v1/PullMessagesRequest.js';
import type { PullMessagesResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/PullMessagesResponse.js';
import { ensureError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import type { MessageHandler, SubscribeRequest } from '../contracts/pubsub.js';
import type { ComponentConnection } from './connection.js';
import { ReopeningStream } from './reopening-stream.js';

type PullStream = grpc.ClientDuplexStream<PullMessagesRequest, PullMessagesResponse__Output>;

export class PullSubscription extends ReopeningStream<PullMessagesRequest, PullMessagesResponse__Output> {
  #paused = false;

  constructor(
    conn: ComponentConnection,
    private readonly client: PubSubClient,
    private readonly req: SubscribeRequest,
    private readonly handler: MessageHandler,
    log: Logger,
  ) {
    super(conn, log, { topic: req.topic });
  }

  protected start(): PullStream {
    const stream = this.client.PullMessages(this.conn.metadata());
    this.#paused = false;
    stream.write({ topic: { name: this.req.topic, metadata: { ...this.req.metadata } } });
    return stream;
  }

  protected onMessage(stream: PullStream, msg: PullMessagesResponse__Output): void {
    const call = this.handler({ id: msg.id, topic: msg.topicName || this.req.topic, data: msg.data, contentType: msg.contentType || undefined, metadata: msg.metadata }).then(
      () => this.answer(stream, { ackMessageId: msg.id }),
      (err: unknown) => this.answer(stream, { ackMessageId: msg.id, ackError: { message: ensureError(err).message } }),
    );
    this.track(call, () => {
      if (this.#paused && stream === this.current && this.inFlightCount < this.req.maxConcurrency) {
        this.#paused = false;
        stream.resume();
      }
    });
    if (this.inFlightCount >= this.req.maxConcurrency && !this.#paused) {
      this.#paused = true;
      stream.pause();
    }
  }
}
