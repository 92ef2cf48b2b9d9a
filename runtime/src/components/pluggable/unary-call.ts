/**
 * Unary calls started straight on a channel. A grpc-js client wraps each call in an interceptor chain and an
 * EventEmitter, and keeps a `new Error()` per call for the caller's stack, which captures the stack every time:
 * the profile of svcd serving a pluggable store showed the client's `makeUnaryRequest` alone at about 16 µs a call.
 * Component channels have no interceptors and no call credentials, so their unary calls need none of that: the
 * channel's own call does the framing, deadlines and message size limits, as it does under the client.
 */
import * as grpc from '@grpc/grpc-js';

/** The error a grpc-js client would give for this status (`code`, `details`, `metadata`, same message). */
function serviceError(status: grpc.StatusObject): grpc.ServiceError {
  return Object.assign(new Error(`${status.code} ${grpc.status[status.code]}: ${status.details}`), status);
}

/** One unary call of `method` on `channel`; `callback` is called exactly once, as a client's would be. */
export function startUnaryCall<Req, Res>(
  channel: grpc.Channel,
  method: Pick<grpc.MethodDefinition<Req, Res>, 'path' | 'requestSerialize' | 'responseDeserialize'>,
  request: Req,
  metadata: grpc.Metadata,
  deadline: grpc.Deadline,
  callback: grpc.requestCallback<Res>,
): void {
  const call = channel.createCall(method.path, deadline, undefined, null, undefined);
  let reply: { value: Res } | undefined;
  let unreadable: grpc.StatusObject | undefined;
  call.start(metadata, {
    onReceiveMetadata: () => undefined,
    onReceiveMessage: (message: Buffer) => {
      if (reply) return call.cancelWithStatus(grpc.status.UNIMPLEMENTED, 'Too many responses received');
      try {
        reply = { value: method.responseDeserialize(message) };
      } catch (err) {
        unreadable = { code: grpc.status.INTERNAL, details: `Response message parsing error: ${(err as Error).message}`, metadata: new grpc.Metadata() };
        call.cancelWithStatus(unreadable.code, unreadable.details);
      }
    },
    onReceiveStatus: (received: grpc.StatusObject) => {
      const status = unreadable ?? received;
      if (status.code !== grpc.status.OK) callback(serviceError(status));
      else if (!reply) callback(serviceError({ code: grpc.status.UNIMPLEMENTED, details: 'No message received', metadata: status.metadata }));
      else callback(null, reply.value);
    },
  });
  call.startRead();
  let body: Buffer;
  try {
    body = method.requestSerialize(request);
  } catch (err) {
    return call.cancelWithStatus(grpc.status.INTERNAL, `Request message serialization failure: ${(err as Error).message}`);
  }
  call.sendMessageWithContext({}, body);
  call.halfClose();
}
