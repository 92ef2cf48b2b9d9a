import type { ComponentsProtoPackage } from '@svc/proto';
import type { InvokeResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/InvokeResponse.js';
import type { InputHandler, InvokeRequest, InvokeResponse } from '../contracts/bindings.js';
import type { Logger } from '../../log/logger.js';
import { Closables } from '../../util/closables.js';
import { ReadStream } from './read-stream.js';
import type { InputBindingClient } from '@svc/proto/gen/svc/proto/components/v1/InputBinding.js';
import type { ListOperationsResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/ListOperationsResponse.js';
import type { OutputBindingClient } from '@svc/proto/gen/svc/proto/components/v1/OutputBinding.js';
import type { Component } from '../registry.js';
import type { ComponentConnection } from './connection.js';

/**
 * A binding served by a pluggable component (input, output or both behind one socket): initialised on each
 * advertised side, health-checked, listed with its output operations; `invoke` on the output side, a `Read`
 * stream on the input side.
 */
export class PluggableBinding implements Component {
  readonly #input: InputBindingClient | undefined;
  readonly #output: OutputBindingClient | undefined;
  #operations: string[] = [];
  readonly #readers = new Closables<ReadStream>();

  constructor(
    private readonly conn: ComponentConnection,
    proto: ComponentsProtoPackage,
    sides: { input: boolean; output: boolean },
    /** The spec's metadata, sent with every Init. */
    private readonly properties: Readonly<Record<string, string>>,
    private readonly log: Logger,
  ) {
    this.#input = sides.input ? conn.client(proto.grpc.InputBinding) : undefined;
    this.#output = sides.output ? conn.client(proto.grpc.OutputBinding) : undefined;
  }

  async handshake(): Promise<void> {
    const metadata = { properties: { ...this.properties } };
    const input = this.#input;
    const output = this.#output;
    if (input) await this.conn.raw((md, o, cb) => input.Init({ metadata }, md, o, cb));
    if (output) {
      await this.conn.raw((md, o, cb) => output.Init({ metadata }, md, o, cb));
      const res = await this.conn.raw<ListOperationsResponse__Output>((md, o, cb) => output.ListOperations({}, md, o, cb));
      this.#operations = [...res.operations];
    }
  }

  ping(deadline: Date): Promise<unknown> {
    const output = this.#output;
    const input = this.#input;
    if (output) return this.conn.raw((md, o, cb) => output.Ping({}, md, o, cb), deadline);
    return this.conn.raw((md, o, cb) => input!.Ping({}, md, o, cb), deadline);
  }

  directions(): { input: boolean; output: boolean } {
    return { input: this.#input !== undefined, output: this.#output !== undefined };
  }

  operations(): readonly string[] {
    return this.#operations;
  }

  async invoke(req: InvokeRequest): Promise<InvokeResponse> {
    const output = this.#output;
    if (!output) throw new Error('this component serves no output binding');
    const res = await this.conn.call<InvokeResponse__Output>((md, o, cb) => output.Invoke({ data: req.data, metadata: { ...req.metadata }, operation: req.operation }, md, o, cb));
    return { data: res.data, metadata: res.metadata, ...(res.contentType ? { contentType: res.contentType } : {}) };
  }

  async read(handler: InputHandler): Promise<{ close(): Promise<void> }> {
    const input = this.#input;
    if (!input) throw new Error('this component serves no input binding');
    const reader = new ReadStream(this.conn, input, handler, this.log, this.conn.instance);
    await reader.open();
    return this.#readers.add(reader);
  }

  capabilities(): readonly string[] {
    return [...(this.#input ? ['INPUT_BINDING'] : []), ...(this.#output ? ['OUTPUT_BINDING'] : []), ...this.#operations];
  }

  health(): { ok: boolean; reason?: string } {
    return this.conn.health();
  }

  async close(): Promise<void> {
    await this.#readers.closeAll();
    await this.conn.close();
  }
}
