import type * as grpc from '@grpc/grpc-js';
import net from 'node:net';
import type { Logger } from '../log/logger.js';
import { GrpcApiServer } from '../util/grpc-server.js';
import { listenFor } from '../util/listen-failure.js';
import { listenOn } from '../util/listen-on.js';
import { readFirstBytes } from '../util/first-bytes.js';
import { DEFAULT_PEER_MESSAGE_BYTES } from './peer-service.js';
import { StreamServer, type StreamHandler } from './stream-server.js';

/** Where parts register the gRPC services other sidecars call on the internal port (calls between replicas). */
export interface InternalServices {
  addService(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): void;
}

/** Where parts register the methods of streaming calls on the internal port (stream-server.ts). */
export interface InternalStreamRoutes {
  addStreamHandlers(handlers: Readonly<Record<string, StreamHandler>>, log: Logger): void;
}

/** Every HTTP/2 connection, so every gRPC one, opens with this; a connection of streaming calls with STREAM_PREFACE. */
const HTTP2_PREFACE_START = 'PRI';
const STREAM_PREFACE_START = 'SVC';
/** A connection that says nothing for this long is closed before it is known which protocol it speaks. */
const FIRST_BYTES_MS = 10_000;

/**
 * Hands a new connection to the server of the protocol its first bytes show, the bytes put back for it to read.
 * Read in paused mode, so the bytes put back are read again by whichever server takes the connection; a connection
 * that opens with neither preface is closed.
 */
function handOver(socket: net.Socket, toGrpc: (s: net.Socket) => void, toStreams: (s: net.Socket) => void): void {
  readFirstBytes(socket, HTTP2_PREFACE_START.length, FIRST_BYTES_MS, (first) => {
    socket.unshift(first);
    const start = first.toString('latin1');
    if (start === HTTP2_PREFACE_START) toGrpc(socket);
    else if (start === STREAM_PREFACE_START) toStreams(socket);
    else socket.destroy();
  });
}

/**
 * The internal port: calls between replicas of one app (actors, workflows; gRPC) and between sidecars of different
 * apps (service invocation; streaming calls, stream-service.ts), told apart by each connection's first bytes. Each
 * service authenticates its own calls. Services and handlers are added before `start()`.
 */
export class InternalServer implements InternalServices, InternalStreamRoutes {
  readonly name = 'internal-grpc';
  readonly #grpc: GrpcApiServer;
  readonly #streams = new StreamServer();
  // No Nagle: a call's frames are small writes each waiting for the last to be acknowledged otherwise.
  readonly #listener = net.createServer({ noDelay: true });
  #address: string | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {
    this.#grpc = new GrpcApiServer(host, port, { maxMessageBytes: DEFAULT_PEER_MESSAGE_BYTES });
  }

  /** `host:port` as other sidecars dial it once started; empty before (a placement record made early says so). */
  get address(): string {
    return this.#address ?? '';
  }

  addService(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): void {
    this.#grpc.addService(service, impl);
  }

  addStreamHandlers(handlers: Readonly<Record<string, StreamHandler>>, log: Logger): void {
    this.#streams.add(handlers, log);
  }

  async start(): Promise<void> {
    const toGrpc = this.#grpc.acceptConnections();
    this.#listener.on('connection', (socket: net.Socket) => handOver(socket, toGrpc, (s) => this.#streams.accept(s)));
    const port = await listenFor('internal-grpc-port', this.host, this.port, () => listenOn(this.#listener, this.host, this.port));
    this.#address = `${this.host}:${port}`;
  }

  /** Makes the gRPC server of this port now, so that the first call between replicas does not wait for it. */
  prepare(): void {
    this.#grpc.prepare();
  }

  /** Stops taking connections, lets calls in progress end (for `graceMs` at most), then closes every connection. */
  async stop(graceMs = 5_000): Promise<void> {
    if (!this.#listener.listening) return;
    this.#listener.close();
    await Promise.all([this.#grpc.stop(graceMs), this.#streams.stop(graceMs)]);
  }
}
