import type { ComponentsProtoPackage } from '@svc/proto';
import type { BulkGetSecretResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/BulkGetSecretResponse.js';
import type { FeaturesResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/FeaturesResponse.js';
import type { GetSecretResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/GetSecretResponse.js';
import type { SecretStoreClient } from '@svc/proto/gen/svc/proto/components/v1/SecretStore.js';
import type { Secret, SecretStore } from '../contracts/secret-store.js';
import type { ComponentConnection } from './connection.js';

/**
 * A secret store served by a pluggable component: initialised with the spec's metadata, health-checked, and asked
 * for one secret or all. Its failures reach the secrets API as they are (which answers ERR_SECRET_GET), an
 * unreachable socket as ERR_COMPONENT_UNAVAILABLE.
 */
export class PluggableSecretStore implements SecretStore {
  readonly #client: SecretStoreClient;
  #features: string[] = [];

  constructor(
    private readonly conn: ComponentConnection,
    proto: ComponentsProtoPackage,
    /** The spec's metadata (secret references resolved), sent with every Init. */
    private readonly properties: Readonly<Record<string, string>>,
  ) {
    this.#client = conn.client(proto.grpc.SecretStore);
  }

  async handshake(): Promise<void> {
    const client = this.#client;
    await this.conn.raw((md, o, cb) => client.Init({ metadata: { properties: { ...this.properties } } }, md, o, cb));
    const res = await this.conn.raw<FeaturesResponse__Output>((md, o, cb) => client.Features({}, md, o, cb));
    this.#features = [...res.features];
  }

  ping(deadline: Date): Promise<unknown> {
    const client = this.#client;
    return this.conn.raw((md, o, cb) => client.Ping({}, md, o, cb), deadline);
  }

  async getSecret(key: string, metadata: Readonly<Record<string, string>>): Promise<Secret> {
    const client = this.#client;
    const res = await this.conn.call<GetSecretResponse__Output>((md, o, cb) => client.Get({ key, metadata: { ...metadata } }, md, o, cb));
    return res.data;
  }

  async bulkGetSecret(metadata: Readonly<Record<string, string>>): Promise<Readonly<Record<string, Secret>>> {
    const client = this.#client;
    const res = await this.conn.call<BulkGetSecretResponse__Output>((md, o, cb) => client.BulkGet({ metadata: { ...metadata } }, md, o, cb));
    return Object.fromEntries(Object.entries(res.data).map(([name, values]) => [name, values.secrets]));
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
