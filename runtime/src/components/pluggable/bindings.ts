import type { ComponentsProtoPackage } from '@svc/proto';
import type { InputBindingClient } from '@svc/proto/gen/svc/proto/components/v1/InputBinding.js';
import type { ListOperationsResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/ListOperationsResponse.js';
import type { OutputBindingClient } from '@svc/proto/gen/svc/proto/components/v1/OutputBinding.js';
import type { Component } from '../registry.js';
import type { ComponentConnection } from './connection.js';

/**
 * A binding served by a pluggable component (input, output or both behind one socket): initialised on each
 * advertised side, health-checked and listed with its output operations. svcd has no bindings API yet.
 */
export class PluggableBinding implements Component {
  readonly #input: InputBindingClient | undefined;
  readonly #output: OutputBindingClient | undefined;
  #operations: string[] = [];

  constructor(
    private readonly conn: ComponentConnection,
    proto: ComponentsProtoPackage,
    sides: { input: boolean; output: boolean },
    /** The spec's metadata, sent with every Init. */
    private readonly properties: Readonly<Record<string, string>>,
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

  capabilities(): readonly string[] {
    return [...(this.#input ? ['INPUT_BINDING'] : []), ...(this.#output ? ['OUTPUT_BINDING'] : []), ...this.#operations];
  }

  health(): { ok: boolean; reason?: string } {
    return this.conn.health();
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}
