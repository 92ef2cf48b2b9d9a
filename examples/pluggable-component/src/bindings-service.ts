import * as grpc from '@grpc/grpc-js';
import type { InputBindingHandlers } from '@svc/proto/gen/svc/proto/components/v1/InputBinding.js';
import type { OutputBindingHandlers } from '@svc/proto/gen/svc/proto/components/v1/OutputBinding.js';
import type { InvokeResponse } from '@svc/proto/gen/svc/proto/components/v1/InvokeResponse.js';
import type { ReadRequest__Output } from '@svc/proto/gen/svc/proto/components/v1/ReadRequest.js';
import type { ReadResponse } from '@svc/proto/gen/svc/proto/components/v1/ReadResponse.js';
import { plainError } from './grpc-errors.js';
import { Instances, unary } from './instances.js';

type Reader = grpc.ServerDuplexStream<ReadRequest__Output, ReadResponse>;

interface Entry {
  readonly id: string;
  readonly data: Buffer;
  readonly contentType: string;
}

/**
 * One "outbox" binding instance. Output operations: `create` stores the data and also emits it as an input event,
 * `get` (metadata `id`), `list` (all ids), `delete` (metadata `id`). Input: every created entry is sent to the
 * Read streams; an event answered with an error is sent again a moment later.
 */
class Outbox {
  readonly #entries = new Map<string, Entry>();
  readonly #readers = new Set<Reader>();
  readonly #pending: Entry[] = [];
  #next = 1;

  create(data: Buffer, contentType: string): Entry {
    const entry = { id: String(this.#next++), data, contentType };
    this.#entries.set(entry.id, entry);
    this.#emit(entry);
    return entry;
  }

  get(id: string): Entry | undefined {
    return this.#entries.get(id);
  }

  ids(): string[] {
    return [...this.#entries.keys()];
  }

  delete(id: string): boolean {
    return this.#entries.delete(id);
  }

  read(stream: Reader): void {
    this.#readers.add(stream);
    const leave = () => this.#readers.delete(stream);
    stream.on('end', leave);
    stream.on('error', leave);
    stream.on('cancelled', leave);
    stream.on('data', (ack: ReadRequest__Output) => {
      const entry = this.#entries.get(ack.messageId);
      if (ack.responseError && entry) setTimeout(() => this.#emit(entry), 200);
    });
    for (const e of this.#pending.splice(0)) this.#emit(e);
  }

  #emit(entry: Entry): void {
    const reader = [...this.#readers][0];
    if (!reader) {
      this.#pending.push(entry);
      return;
    }
    reader.write({ data: entry.data, metadata: { id: entry.id }, contentType: entry.contentType, messageId: entry.id });
  }
}

export const OUTBOX_OPERATIONS = ['create', 'get', 'list', 'delete'];

export function bindingServices(): { input: InputBindingHandlers; output: OutputBindingHandlers } {
  const instances = new Instances<Outbox>('binding');
  const ensure = (call: { metadata: grpc.Metadata }) => {
    try {
      instances.of(call);
    } catch {
      instances.init(call, () => new Outbox()); // input and output sides share one instance per name
    }
  };
  const input: InputBindingHandlers = {
    Init: unary((call) => (ensure(call), {})),
    Ping: unary(() => ({})),
    Read: (stream) => {
      try {
        instances.of(stream).read(stream);
      } catch (err) {
        stream.emit('error', err);
      }
    },
  };
  const output: OutputBindingHandlers = {
    Init: unary((call) => (ensure(call), {})),
    Ping: unary(() => ({})),
    ListOperations: unary(() => ({ operations: OUTBOX_OPERATIONS })),
    Invoke: unary((call): InvokeResponse => {
      const outbox = instances.of(call);
      const { operation, data, metadata } = call.request;
      const id = metadata.id ?? '';
      switch (operation) {
        case 'create': {
          const entry = outbox.create(data, metadata.contentType ?? 'application/json');
          return { data: Buffer.from(JSON.stringify({ id: entry.id })), metadata: { id: entry.id }, contentType: 'application/json' };
        }
        case 'get': {
          const entry = outbox.get(id);
          if (!entry) throw plainError(grpc.status.NOT_FOUND, `no entry ${id}`);
          return { data: entry.data, metadata: { id }, contentType: entry.contentType };
        }
        case 'list':
          return { data: Buffer.from(JSON.stringify(outbox.ids())), metadata: {}, contentType: 'application/json' };
        case 'delete':
          if (!outbox.delete(id)) throw plainError(grpc.status.NOT_FOUND, `no entry ${id}`);
          return { data: Buffer.alloc(0), metadata: {}, contentType: '' };
        default:
          throw plainError(grpc.status.INVALID_ARGUMENT, `unknown operation ${operation}`);
      }
    }),
  };
  return { input, output };
}
