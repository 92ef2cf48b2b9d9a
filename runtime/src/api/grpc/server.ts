import * as grpc from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';

/**
 * The gRPC API listener. Parts register their services before `start()`; stop drains calls, then forces after
 * the grace period. Long-lived streams (workflow work items) are ended by their owners before this stops.
 */
export class GrpcApiServer {
  readonly #server: grpc.Server;
  #started = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    /** Largest message received (and, when set, sent); default 16 MiB received. */
    maxMessageBytes?: number,
  ) {
    this.#server = new grpc.Server({
      'grpc.max_receive_message_length': maxMessageBytes ?? 16 * 1024 * 1024,
      ...(maxMessageBytes !== undefined ? { 'grpc.max_send_message_length': maxMessageBytes } : {}),
      'grpc.keepalive_permit_without_calls': 1,
      // Channelz bookkeeping costs CPU on every call and nothing here reads it.
      'grpc.enable_channelz': 0,
    });
  }

  addService(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): void {
    this.#server.addService(service, impl);
  }

  /**
   * Server reflection (grpcurl, Postman, `grpc_cli`) for the services named, described from these definitions
   * (which may also hold services this server does not serve, such as the app callbacks svcd calls), each asked
   * for on the first reflection call.
   */
  addReflection(definitions: readonly (() => PackageDefinition)[], services: readonly string[]): void {
    // Indexing the definitions decodes every file descriptor once per type and reflection version: about 200 ms
    // of start-up for what a tool asks for now and then. The services are registered now (the server cannot take
    // more once started) with handlers that build the index on the first reflection call.
    let described: Map<string, grpc.UntypedServiceImplementation> | undefined;
    const describe = () => (described ??= implementationsOf(new ReflectionService(Object.assign({}, ...definitions.map((d) => d())) as PackageDefinition, { services: [...services] })));
    for (const [path, { definition, implementation }] of servicesOf(new ReflectionService({}, { services: [] }))) {
      const lazy: grpc.UntypedServiceImplementation = {};
      for (const method of Object.keys(implementation)) {
        lazy[method] = ((call: unknown, callback: unknown) => {
          const real = describe().get(path)?.[method] as ((call: unknown, callback: unknown) => void) | undefined;
          real?.(call, callback);
        }) as grpc.UntypedHandleCall;
      }
      this.#server.addService(definition, lazy);
    }
  }

  async start(): Promise<number> {
    const port = await new Promise<number>((resolve, reject) => {
      this.#server.bindAsync(`${this.host}:${this.port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
    });
    this.#started = true;
    return port;
  }

  async stop(graceMs: number): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#server.forceShutdown();
        resolve();
      }, graceMs);
      this.#server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** What a ReflectionService would add to a server, keyed by the path of the service's first method. */
function servicesOf(reflection: ReflectionService): Map<string, { definition: grpc.ServiceDefinition; implementation: grpc.UntypedServiceImplementation }> {
  const added = new Map<string, { definition: grpc.ServiceDefinition; implementation: grpc.UntypedServiceImplementation }>();
  const recorder = {
    addService(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation) {
      added.set(Object.values(definition)[0]!.path, { definition, implementation });
    },
  };
  reflection.addToServer(recorder);
  return added;
}

function implementationsOf(reflection: ReflectionService): Map<string, grpc.UntypedServiceImplementation> {
  return new Map([...servicesOf(reflection)].map(([path, s]) => [path, s.implementation]));
}
