import type * as grpc from '@grpc/grpc-js';
import { GrpcApiServer } from '../util/grpc-server.js';
import { listenFor } from '../util/listen-failure.js';
import { DEFAULT_PEER_MESSAGE_BYTES } from './peer-service.js';

/** Where parts register what other sidecars call on the internal port. */
export interface InternalServices {
  addService(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): void;
}

/**
 * The internal gRPC port: calls between replicas of one app (actors, workflows) and between sidecars of different
 * apps (service invocation). Each service authenticates its own calls. Services are added before `start()`.
 */
export class InternalServer implements InternalServices {
  readonly name = 'internal-grpc';
  readonly #server: GrpcApiServer;
  #address: string | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {
    this.#server = new GrpcApiServer(host, port, { maxMessageBytes: DEFAULT_PEER_MESSAGE_BYTES });
  }

  /** `host:port` as other sidecars dial it once started; empty before (a placement record made early says so). */
  get address(): string {
    return this.#address ?? '';
  }

  addService(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): void {
    this.#server.addService(service, impl);
  }

  async start(): Promise<void> {
    const port = await listenFor('internal-grpc-port', this.host, this.port, () => this.#server.start());
    this.#address = `${this.host}:${port}`;
  }

  stop(graceMs = 5_000): Promise<void> {
    return this.#server.stop(graceMs);
  }
}
