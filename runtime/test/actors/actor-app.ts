/**
 * A small app that hosts actors the way Dapr apps do, run in the test process: it answers `/dapr/config`,
 * records every actor callback svcd makes, and for the `bump` method writes N state keys through svcd's actor
 * state API in one transaction (all keys equal is the invariant the crash tests check).
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AppCall {
  readonly kind: 'method' | 'remind' | 'timer' | 'deactivate';
  readonly type: string;
  readonly id: string;
  /** Method, reminder or timer name. */
  readonly name: string;
  readonly body: string;
}

/**
 * Shared by the apps of several replicas (all in the test process): counts turns of one actor that overlap, which
 * must never happen wherever the actor's calls come from.
 */
export class TurnTracker {
  readonly #inTurn = new Set<string>();
  overlaps = 0;
  turns = 0;

  enter(actor: string): void {
    if (this.#inTurn.has(actor)) this.overlaps++;
    this.#inTurn.add(actor);
    this.turns++;
  }

  exit(actor: string): void {
    this.#inTurn.delete(actor);
  }
}

export interface ActorAppOptions {
  readonly types?: readonly string[];
  readonly idleTimeout?: string;
  /** How many keys `bump` writes. */
  readonly bumpKeys?: number;
  /** Listen on this port (default: any free one). */
  readonly port?: number;
  /** For the `hold` method: where its turns are tracked. */
  readonly turns?: TurnTracker;
}

export class ActorApp {
  readonly calls: AppCall[] = [];
  readonly #events = new EventEmitter();
  /** Where `bump` reaches svcd; set once svcd runs. */
  svcdUrl = '';
  /** Status the reminder callback answers with (to test retries). */
  reminderStatus = 200;

  private constructor(
    private readonly server: http.Server,
    readonly opts: ActorAppOptions,
  ) {}

  static async start(opts: ActorAppOptions = {}): Promise<ActorApp> {
    const server = http.createServer();
    const app = new ActorApp(server, opts);
    server.on('request', (req, res) => void app.#handle(req, res));
    await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
    return app;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  count(pred: (c: AppCall) => boolean): number {
    return this.calls.filter(pred).length;
  }

  /** Resolves once `pred` holds over the recorded calls; re-checked on every new call, never on a timer. */
  waitFor(pred: (calls: readonly AppCall[]) => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    if (pred(this.calls)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onCall = () => {
        if (!pred(this.calls)) return;
        clearTimeout(timer);
        this.#events.off('call', onCall);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#events.off('call', onCall);
        reject(new Error(`timed out waiting for: ${what}; calls so far: ${this.calls.length}`));
      }, timeoutMs);
      this.#events.on('call', onCall);
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://app');
    if (req.method === 'GET' && url.pathname === '/dapr/config') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ entities: this.opts.types ?? ['Counter', 'Pinger'], actorIdleTimeout: this.opts.idleTimeout ?? '1h' }));
      return;
    }
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    // actors/<type>/<id>[/method/<m> | /method/remind/<r> | /method/timer/<t>]
    if (parts[0] !== 'actors' || parts.length < 3) {
      res.writeHead(404).end();
      return;
    }
    const [, type = '', id = ''] = parts;
    let call: AppCall;
    if (req.method === 'DELETE' && parts.length === 3) call = { kind: 'deactivate', type, id, name: '', body };
    else if (parts[3] === 'method' && (parts[4] === 'remind' || parts[4] === 'timer') && parts.length === 6) call = { kind: parts[4], type, id, name: parts[5]!, body };
    else if (parts[3] === 'method' && parts.length === 5) call = { kind: 'method', type, id, name: parts[4]!, body };
    else {
      res.writeHead(404).end();
      return;
    }
    try {
      const answer = await this.#answer(call);
      this.calls.push(call);
      this.#events.emit('call');
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  }

  async #answer(call: AppCall): Promise<{ status: number; body: string }> {
    if (call.kind === 'remind') return { status: this.reminderStatus, body: '' };
    if (call.kind !== 'method') return { status: 200, body: '' };
    if (call.name === 'echo') return { status: 200, body: JSON.stringify({ echoed: call.body }) };
    if (call.name === 'fail') return { status: 500, body: 'app failure' };
    if (call.name === 'bump') return { status: 200, body: JSON.stringify(await this.#bump(call)) };
    if (call.name === 'arm') return { status: 200, body: JSON.stringify(await this.#arm(call)) };
    if (call.name === 'hold') return { status: 200, body: JSON.stringify(await this.#hold(call)) };
    return { status: 200, body: '' };
  }

  /** A bump that takes a while, inside a tracked turn: two overlapping turns of one actor would be counted. */
  async #hold(call: AppCall): Promise<number> {
    const actor = `${call.type}/${call.id}`;
    this.opts.turns?.enter(actor);
    try {
      await new Promise((r) => setTimeout(r, 5));
      return await this.#bump(call);
    } finally {
      this.opts.turns?.exit(actor);
    }
  }

  /** Registers a timer and a reminder on itself from inside its own turn, as Dapr SDK actors do. */
  async #arm(call: AppCall): Promise<number[]> {
    const base = `${this.svcdUrl}/v1.0/actors/${call.type}/${call.id}`;
    const timer = await fetch(`${base}/timers/armed`, { method: 'POST', body: JSON.stringify({ dueTime: '10ms', period: '50ms' }) });
    const reminder = await fetch(`${base}/reminders/armed`, { method: 'POST', body: JSON.stringify({ dueTime: '10ms' }) });
    return [timer.status, reminder.status];
  }

  /** Reads k0, then sets k0..k(N-1) to k0+1 in one actor state transaction (the turn keeps this atomic per actor). */
  async #bump(call: AppCall): Promise<number> {
    const base = `${this.svcdUrl}/v1.0/actors/${call.type}/${call.id}/state`;
    const res = await fetch(`${base}/k0`);
    const current = res.status === 204 ? 0 : (JSON.parse(await res.text()) as number);
    const next = current + 1;
    const n = this.opts.bumpKeys ?? 20;
    const ops = Array.from({ length: n }, (_, i) => ({ operation: 'upsert', request: { key: `k${i}`, value: next } }));
    const saved = await fetch(base, { method: 'POST', body: JSON.stringify(ops), headers: { 'content-type': 'application/json' } });
    if (saved.status !== 204) throw new Error(`state transaction answered ${saved.status}: ${await saved.text()}`);
    return next;
  }
}
