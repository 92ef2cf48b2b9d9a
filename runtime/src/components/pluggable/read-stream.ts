/**
 * A pluggable input binding's `Read` stream: each event the component sends goes to the handler; the answer goes
 * back as `{message_id, response_data}` or `{message_id, response_error}` (the component may redeliver). Opened
 * again after a component restart (`ReopeningStream`).
 */
import type * as grpc from '@grpc/grpc-js';
import type { InputBindingClient } from '@svc/proto/gen/svc/proto/components/v1/InputBinding.js';
import type { ReadRequest } from '@svc/proto/gen/svc/proto/components/v1/ReadRequest.js';
import type { ReadResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/ReadResponse.js';
import { ensureError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import type { InputHandler } from '../contracts/bindings.js';
import type { ComponentConnection } from './connection.js';
import { ReopeningStream } from './reopening-stream.js';

type Stream = grpc.ClientDuplexStream<ReadRequest, ReadResponse__Output>;

export class ReadStream extends ReopeningStream<ReadRequest, ReadResponse__Output> {
  constructor(
    conn: ComponentConnection,
    private readonly client: InputBindingClient,
    private readonly handler: InputHandler,
    log: Logger,
    binding: string,
  ) {
    super(conn, log, { binding });
  }

  protected start(): Stream {
    return this.client.Read(this.conn.metadata());
  }

  protected onMessage(stream: Stream, event: ReadResponse__Output): void {
    const call = this.handler({ data: event.data, metadata: event.metadata, ...(event.contentType ? { contentType: event.contentType } : {}) }).then(
      (responseData) => this.answer(stream, { messageId: event.messageId, responseData }),
      (err: unknown) => this.answer(stream, { messageId: event.messageId, responseError: { message: ensureError(err).message } }),
    );
    this.track(call, () => undefined);
  }
}
