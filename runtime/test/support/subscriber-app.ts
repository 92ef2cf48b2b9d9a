/**
 * A stand-in for an app that subscribes: a real HTTP server on a free port that serves `GET /dapr/subscribe`,
 * records every delivery, and answers each with what the test scripted for its path (by default 200 SUCCESS).
 * With `actorTypes` it also hosts those actor types: `GET /dapr/config` names them and actor calls (PUT under
 * `/actors/…`) are recorded and answered like deliveries.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { freePort } from './ports.js';

export interface Delivery {
  readonly path: string;
  readonly contentType: string | undefined;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
  /** The body as text (input bindings send any bytes, not only JSON). */
  readonly text: string;
  /** When it arrived (ms since the epoch, sub-millisecond), for latency figures. */
  readonly receivedAt: number;
}

/** What the app answers: a status and an optional JSON body. */
export interface AppAnswer {
  readonly status: number;
  readonly body?: unknown;
  /** The body from what was delivered (a bulk delivery's per-entry statuses); instead of `body`. */
  readonly bodyFor?: (delivery: Delivery) => unknown;
  /** Answer only after this long (a slow app; deliveries stay in flight meanwhile). */
  readonly delayMs?: number;
  /** Answer only once this settles (an app that holds the request until the test lets it go). */
  readonly until?: Promise<unknown>;
  /** The body written as it is, instead of `body` as JSON (an answer that is not JSON). */
  readonly raw?: string;
  /** No answer: the connection is reset (destroyed) instead. */
  readonly reset?: boolean;
  /** A body of this many bytes (`x`), streamed as fast as the receiver takes it: an app answering far too much. */
  readonly bodyBytes?: number;
}

export class SubscriberApp {
  readonly deliveries: Delivery[] = [];
  /** Per path, the answers to give in turn (the last one repeats); unscripted paths answer 200 SUCCESS. */
  readonly answers = new Map<string, AppAnswer[]>();
  /** The actor types `GET /dapr/config` announces (none: 404, no actors). */
  actorTypes: string[] = [];
  /** What `GET /healthz` answers (app health checks). */
  healthStatus = 200;
  /** How many health probes came. */
  healthProbes = 0;
  #waiters: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly subscriptions: unknown[],
  ) {}

  /** On `port` when given (the app coming back where svcd expects it), else on a free one. */
  static async start(subscriptions: unknown[] = [], port?: number): Promise<SubscriberApp> {
    port ??= await freePort();
    const holder: { app?: SubscriberApp } = {};
    const server = createServer((req, res) => void holder.app!.handle(req, res));
    const app = (holder.app = new SubscriberApp(server, port, subscriptions));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return app;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'GET' && path === '/dapr/subscribe') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.subscriptions));
      return;
    }
    if (req.method === 'GET' && path === '/dapr/config') {
      if (this.actorTypes.length === 0) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ entities: this.actorTypes }));
      return;
    }
    if (req.method === 'GET' && path === '/healthz') {
      this.healthProbes++;
      res.writeHead(this.healthStatus).end();
      return;
    }
    if (req.method === 'OPTIONS') {
      // An input binding's probe: a path scripted to answer 404 is one the app does not listen on.
      res.writeHead(this.answers.get(path)?.[0]?.status === 404 ? 404 : 200).end();
      return;
    }
    const actorCall = req.method === 'PUT' && path.startsWith('/actors/');
    if (req.method !== 'POST' && !actorCall) {
      res.writeHead(404).end();
      return;
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const delivery = { path, contentType: req.headers['content-type'], headers: req.headers, body: parseObject(text), text, receivedAt: performance.timeOrigin + performance.now() };
    this.deliveries.push(delivery);
    for (const w of this.#waiters.splice(0)) w();
    const scripted = this.answers.get(path);
    const answer = scripted && scripted.length > 1 ? scripted.shift()! : (scripted?.[0] ?? { status: 200, body: { status: 'SUCCESS' } });
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    if (answer.until) await answer.until;
    if (answer.reset) {
      req.socket.destroy();
      return;
    }
    if (res.destroyed) return;
    if (answer.bodyBytes !== undefined) {
      res.writeHead(answer.status, { 'content-type': 'text/plain' });
      await streamBytes(res, answer.bodyBytes);
      return;
    }
    if (answer.raw !== undefined) {
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.raw);
      return;
    }
    const body = answer.bodyFor ? answer.bodyFor(delivery) : answer.body;
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(body === undefined ? '' : JSON.stringify(body));
  }

  /** Waits until `count` deliveries to `path` arrived (or fails after `timeoutMs`). */
  async waitFor(path: string, count = 1, timeoutMs = 15_000): Promise<Delivery[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = this.deliveries.filter((d) => d.path === path);
      if (got.length >= count) return got;
      if (Date.now() > deadline) throw new Error(`${got.length} of ${count} deliveries to ${path} within ${timeoutMs} ms (all: ${this.deliveries.map((d) => d.path).join(', ') || 'none'})`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  to(path: string): Delivery[] {
    return this.deliveries.filter((d) => d.path === path);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Writes `total` bytes in 64 KiB chunks, waiting for the receiver between them; stops when the connection ends. */
async function streamBytes(res: ServerResponse, total: number): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, 0x78);
  for (let sent = 0; sent < total && !res.destroyed; sent += chunk.length) {
    if (!res.write(chunk.subarray(0, Math.min(chunk.length, total - sent)))) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done).off('close', done);
          resolve();
        };
        res.on('drain', done).on('close', done);
      });
    }
  }
  if (!res.destroyed) res.end();
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return {};
  }
}
