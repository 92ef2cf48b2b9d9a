import type * as grpc from '@grpc/grpc-js';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import { GrpcApiServer } from '../util/grpc-server.js';
import { listenFor } from '../util/listen-failure.js';
import { listenOn } from '../util/listen-on.js';
import { DEFAULT_PEER_MESSAGE_BYTES } from './peer-service.js';
import { IDLE_CONNECTION_MS } from './stream-service.js';

/** Where parts register the gRPC services other sidecars call on the internal port (calls between replicas). */
export interface InternalServices {
  addService(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): void;
}

/** Where parts register the HTTP/1.1 routes of streaming calls on the internal port (stream-server.ts). */
export interface InternalStreamRoutes {
  addStreamRoute(path: string, handler: (req: IncomingMessage, res: ServerResponse) => void): void;
}

/** Every HTTP/2 connection, so every gRPC one, opens with this preface; an HTTP/1.1 one with its request line. */
const HTTP2_PREFACE_START = 'PRI';
/** A connection that says nothing for this long is closed before it is known which protocol it speaks. */
const FIRST_BYTES_MS = 10_000;

/**
 * Hands a new connection to the server of the protocol its first bytes show, the bytes put back for it to read.
 * Read in paused mode: the HTTP/1.1 server consumes the socket natively and sees data put back only that way.
 */
function handOver(socket: net.Socket, toGrpc: (s: net.Socket) => void, toHttp: (s: net.Socket) => void): void {
  const dropped = () => socket.destroy();
  socket.setTimeout(FIRST_BYTES_MS, dropped);
  socket.once('error', dropped);
  const sniff = () => {
    const first = socket.read(HTTP2_PREFACE_START.length) as Buffer | null;
    if (first === null) return void socket.once('readable', sniff);
    socket.setTimeout(0);
    socket.off('timeout', dropped).off('error', dropped);
    socket.unshift(first);
    if (first.toString('latin1') === HTTP2_PREFACE_START) toGrpc(socket);
    else toHttp(socket);
  };
  sniff();
}

/**
 * The internal port: calls between replicas of one app (actors, workflows; gRPC) and between sidecars of different
 * apps (service invocation; HTTP/1.1, stream-service.ts), told apart by each connection's first bytes. Each
 * service authenticates its own calls. Services and routes are added before `start()`.
 */
export class InternalServer implements InternalServices, InternalStreamRoutes {
  readonly name = 'internal-grpc';
  readonly #grpc: GrpcApiServer;
  readonly #routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
  // Keeps an idle connection longer than the calling side does (stream-service.ts): the caller closes first.
  // No request timeout: an invocation may stream for as long as its app does. No Host: callers send none.
  readonly #http = http.createServer({ keepAliveTimeout: 2 * IDLE_CONNECTION_MS, requestTimeout: 0, requireHostHeader: false }, (req, res) => this.#route(req, res));
  // No Nagle: a call's frames are small writes each waiting for the last to be acknowledged otherwise.
  readonly #listener = net.createServer({ noDelay: true });
  #address: string | undefined;
  /** HTTP/1.1 calls being answered, and who waits for there to be none (stop). */
  #active = 0;
  #drained: (() => void) | undefined;
  #closing = false;

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

  addStreamRoute(path: string, handler: (req: IncomingMessage, res: ServerResponse) => void): void {
    this.#routes.set(path, handler);
  }

  async start(): Promise<void> {
    const toGrpc = this.#grpc.acceptConnections();
    const toHttp = (socket: net.Socket) => this.#http.emit('connection', socket);
    this.#listener.on('connection', (socket: net.Socket) => handOver(socket, toGrpc, toHttp));
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
    this.#closing = true;
    this.#http.closeIdleConnections();
    await Promise.all([this.#grpc.stop(graceMs), this.#httpCallsEnded(graceMs)]);
    this.#http.closeAllConnections();
  }

  #httpCallsEnded(graceMs: number): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.#drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  #route(req: IncomingMessage, res: ServerResponse): void {
    // Stopping: this answer is the connection's last.
    if (this.#closing) res.shouldKeepAlive = false;
    this.#active += 1;
    res.once('close', () => {
      this.#active -= 1;
      if (this.#active === 0) this.#drained?.();
    });
    const handler = req.method === 'POST' ? this.#routes.get(req.url ?? '') : undefined;
    if (handler) return handler(req, res);
    res.writeHead(404).end();
  }
}
