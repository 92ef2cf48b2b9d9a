import type { ComponentsProtoPackage } from '@svc/proto';
import type { FeaturesResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/FeaturesResponse.js';
import type { PubSubClient } from '@svc/proto/gen/svc/proto/components/v1/PubSub.js';
import type { Component } from '../registry.js';
import type { ComponentConnection } from './connection.js';

/**
 * A pub/sub served by a pluggable component: initialised, health-checked and listed with its features. svcd has
 * no pub/sub API yet, so nothing publishes through it.
 */
export class PluggablePubSub implements Component {
  readonly #client: PubSubClient;
  #features: string[] = [];

  constructor(
    private readonly conn: ComponentConnection,
    proto: ComponentsProtoPackage,
    /** The spec's metadata, sent with every Init. */
    private readonly properties: Readonly<Record<string, string>>,
  ) {
    this.#client = conn.client(proto.grpc.PubSub);
  }

  async handshake(): Promise<void> {
    await this.conn.raw((md, o, cb) => this.#client.Init({ metadata: { properties: { ...this.properties } } }, md, o, cb));
    const res = await this.conn.raw<FeaturesResponse__Output>((md, o, cb) => this.#client.Features({}, md, o, cb));
    this.#features = [...res.features];
  }

  ping(deadline: Date): Promise<unknown> {
    return this.conn.raw((md, o, cb) => this.#client.Ping({}, md, o, cb), deadline);
  }

  capabilities(): readonly string[] {
    return this.#features;
  }

  health(): { ok: boolean; reason?: string } {
    return this.conn.health();
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}
