import * as grpc from '@grpc/grpc-js';
import type { ReflectionService } from '@grpc/reflection';
import { loadProtoRoot, REFLECTION_VERSIONS, servedService, type Conversions, type PackageDefinition, type ReflectionVersion } from '@svc/proto';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { ensureError } from '../errors/runtime-error.js';
import { serveUnknownMethods } from './grpc-unknown-methods.js';
import { listenOn } from './listen-on.js';

/** @grpc/reflection's copy of the reflection protocol (svc's own holds only the ListServices part discovery uses). */
function reflectionProtocolFile(version: ReflectionVersion): string {
  const main = createRequire(import.meta.url).resolve('@grpc/reflection');
  return path.join(path.dirname(main), '..', 'proto', 'grpc', 'reflection', version, 'reflection.proto');
}

/** How @grpc/reflection's handlers read and write their messages (its own proto-loader options). */
const REFLECTION_CONVERSIONS: Conversions = { longs: String, enums: String, bytes: Array, defaults: true, oneofs: true };

/**
 * The gRPC API listener. Parts register their services before `start()`; stop drains calls, then forces after
 * the grace period. Long-lived streams (workflow work items) are ended by their owners before this stops.
 *
 * The port is a `node:net` listener, and the grpc-js server that serves its connections is made later: by
 * `prepare()`, which svcd calls once it is ready, or by the first connection, whichever comes first. Loading
 * grpc-js loads Node's `http2` and `tls`, about 4 % of what svcd runs after Node's own start; a client that
 * connects meanwhile is served the same, its connection handed to the server as soon as it is made (the bundle
 * loads grpc-js on its first use: runtime/scripts/bundle.mjs).
 */
export interface GrpcServerOptions {
  /** Largest message received (and, when set, sent); default 16 MiB received. */
  maxMessageBytes?: number;
  /** Server pings to each client connection: every `timeMs`, closed when unanswered within `timeoutMs`. */
  keepalive?: { timeMs: number; timeoutMs: number };
}

export class GrpcApiServer {
  readonly #options: grpc.ServerOptions;
  /** What the server is made with: its services, the handler of unknown methods, reflection. */
  readonly #setUp: ((server: grpc.Server) => void)[] = [];
  #server: grpc.Server | undefined;
  #inject: ((connection: Duplex) => void) | undefined;
  #listener: net.Server | undefined;
  #started = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    opts: GrpcServerOptions = {},
  ) {
    const { maxMessageBytes, keepalive } = opts;
    this.#options = {
      'grpc.max_receive_message_length': maxMessageBytes ?? 16 * 1024 * 1024,
      ...(maxMessageBytes !== undefined ? { 'grpc.max_send_message_length': maxMessageBytes } : {}),
      // Pings find connections whose client is gone without a word (a stopped process, a broken network): their
      // calls end, so a workflow worker's work goes to other workers.
      ...(keepalive ? { 'grpc.keepalive_time_ms': keepalive.timeMs, 'grpc.keepalive_timeout_ms': keepalive.timeoutMs } : {}),
      'grpc.keepalive_permit_without_calls': 1,
      // Channelz bookkeeping costs CPU on every call and nothing here reads it.
      'grpc.enable_channelz': 0,
    };
  }

  addService(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): void {
    this.#whenMade((server) => server.addService(service, impl));
  }

  /** Calls to methods no added service serves go to `handle`, messages as raw bytes (gRPC proxying). */
  serveUnknownMethods(handle: grpc.handleBidiStreamingCall<Buffer, Buffer>): void {
    this.#whenMade((server) => serveUnknownMethods(server, handle));
  }

  /**
   * Server reflection (grpcurl, Postman, `grpc_cli`) for the services named, described from these definitions
   * (which may also hold services this server does not serve, such as the app callbacks svcd calls), each asked
   * for on the first reflection call.
   */
  addReflection(definitions: readonly (() => Promise<PackageDefinition>)[], services: readonly string[]): void {
    // Loading @grpc/reflection (with proto-loader and protobuf's descriptor schema) and indexing the definitions
    // took a fifth of svcd's start-up, for what a tool asks for now and then. The services are registered with
    // the server (it cannot take more once serving), from the reflection protocol's own files, with handlers that
    // load and index everything on the first reflection call.
    let described: Promise<Map<string, grpc.UntypedServiceImplementation>> | undefined;
    const describe = () => (described ??= describedBy(definitions, services));
    for (const version of REFLECTION_VERSIONS) {
      const path = `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`;
      const definition = { ServerReflectionInfo: bidiMethodParsedOnUse(path, () => withPlainNames(servedService(loadProtoRoot([reflectionProtocolFile(version)]), `grpc.reflection.${version}.ServerReflection`, REFLECTION_CONVERSIONS))) };
      this.#whenMade((server) =>
        server.addService(definition, {
          ServerReflectionInfo: (call: grpc.ServerDuplexStream<unknown, unknown>) => {
            describe()
              .then((described) => {
                const serve = described.get(path)?.ServerReflectionInfo as grpc.handleBidiStreamingCall<unknown, unknown> | undefined;
                if (!serve) throw new Error(`@grpc/reflection serves no ${path}`);
                serve(call);
              })
              .catch((err: unknown) => call.emit('error', { code: grpc.status.INTERNAL, details: `server reflection is unavailable: ${ensureError(err).message}` }));
          },
        }),
      );
    }
  }

  /** Listens on the port; the bound port (an ephemeral one for port 0). */
  async start(): Promise<number> {
    const inject = this.acceptConnections();
    const listener = net.createServer((socket) => inject(socket));
    const port = await listenOn(listener, this.host, this.port);
    this.#listener = listener;
    return port;
  }

  /**
   * Serves connections accepted elsewhere (a listener shared with another protocol) instead of a port of its own;
   * `stop` ends them as it would its own.
   */
  acceptConnections(): (connection: Duplex) => void {
    this.#started = true;
    return (connection) => this.#injector()(connection);
  }

  /** Makes the grpc-js server now, so that the first connection does not wait for it. */
  prepare(): void {
    if (this.#started) this.#injector();
  }

  async stop(graceMs: number): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    this.#listener?.close();
    const server = this.#server;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, graceMs);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #whenMade(setUp: (server: grpc.Server) => void): void {
    if (this.#server !== undefined) throw new Error('gRPC services must be added before the server is made');
    this.#setUp.push(setUp);
  }

  #injector(): (connection: Duplex) => void {
    if (this.#inject !== undefined) return this.#inject;
    const server = new grpc.Server(this.#options);
    this.#server = server;
    for (const setUp of this.#setUp.splice(0)) setUp(server);
    const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
    this.#inject = (connection) => injector.injectConnection(connection);
    return this.#inject;
  }
}

interface ReflectionRequest {
  fileContainingSymbol?: string;
}

interface ReflectionResponse {
  listServicesResponse?: { service?: { name?: string }[] };
  originalRequest?: ReflectionRequest;
}

/** A bidirectional streaming method whose messages' conversions are made (their protocol parsed) on first use. */
function bidiMethodParsedOnUse(path: string, load: () => grpc.MethodDefinition<object, object>): grpc.MethodDefinition<object, object> {
  let method: grpc.MethodDefinition<object, object> | undefined;
  const loaded = () => (method ??= load());
  return {
    path,
    requestStream: true,
    responseStream: true,
    requestSerialize: (value) => loaded().requestSerialize(value),
    requestDeserialize: (bytes) => loaded().requestDeserialize(bytes),
    responseSerialize: (value) => loaded().responseSerialize(value),
    responseDeserialize: (bytes) => loaded().responseDeserialize(bytes),
  };
}

/**
 * @grpc/reflection names a service without a proto package (TaskHubSidecarService) `.Name`, in its index and in
 * its lists; the protocol's names have no leading dot, and tools ask for the name they listed. Lists are
 * answered without the dot, and a symbol without a package is looked up with it.
 */
function withPlainNames(definition: grpc.ServiceDefinition): grpc.MethodDefinition<object, object> {
  const method = definition.ServerReflectionInfo!;
  const deserialize = method.requestDeserialize as (bytes: Buffer) => ReflectionRequest;
  const serialize = method.responseSerialize as (value: ReflectionResponse) => Buffer;
  const plain = (name: string) => name.replace(/^\./, '');
  return {
    ...method,
    requestDeserialize: (bytes: Buffer) => {
      const request = deserialize(bytes);
      const symbol = request.fileContainingSymbol;
      return symbol && !symbol.includes('.') ? { ...request, fileContainingSymbol: `.${symbol}` } : request;
    },
    responseSerialize: (response: ReflectionResponse) => {
      const services = response.listServicesResponse?.service?.map((s) => ({ ...s, name: plain(s.name ?? '') }));
      const asked = response.originalRequest?.fileContainingSymbol;
      return serialize({
        ...response,
        ...(services ? { listServicesResponse: { ...response.listServicesResponse, service: services } } : {}),
        ...(asked ? { originalRequest: { ...response.originalRequest, fileContainingSymbol: plain(asked) } } : {}),
      });
    },
  };
}

/** The handlers @grpc/reflection serves `definitions` with, keyed by the path of each service's first method. */
async function describedBy(definitions: readonly (() => Promise<PackageDefinition>)[], services: readonly string[]): Promise<Map<string, grpc.UntypedServiceImplementation>> {
  // `default`: the bundle of svcd gives a CommonJS module only as its default export.
  const [{ ReflectionService: Reflection }, loaded] = await Promise.all([import('@grpc/reflection').then((m) => m.default), Promise.all(definitions.map((d) => d()))]);
  const reflection: ReflectionService = new Reflection(Object.assign({}, ...loaded) as PackageDefinition, { services: [...services] });
  const added = new Map<string, grpc.UntypedServiceImplementation>();
  reflection.addToServer({
    addService(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation) {
      added.set(Object.values(definition)[0]!.path, implementation);
    },
  });
  return added;
}
