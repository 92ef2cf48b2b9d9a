/**
 * Actors hosted by the app, as Dapr apps expect: svcd reads `GET /dapr/config` for the actor types and calls
 * the app back for methods (`PUT /actors/<type>/<id>/method/<method>`), reminders (`…/method/remind/<name>`),
 * timers (`…/method/timer/<name>`) and deactivation (`DELETE /actors/<type>/<id>`).
 */
import { appRequest, type AppResponse } from '../app/app-http.js';
import { RuntimeError, ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { parseGoDuration, parseIsoDuration } from './durations.js';
import type { Actor, ActorFactory, ReminderInfo, TimerInfo } from './types.js';

export interface AppActorConfig {
  readonly entities: readonly string[];
  readonly actorIdleTimeoutMs?: number;
}

const CALL_TIMEOUT_MS = 60_000;
const CONFIG_TIMEOUT_MS = 5000;

export class AppChannel {
  constructor(
    private readonly port: number,
    private readonly log: Logger,
    /** The largest answer read from the app (`--max-request-size`); a larger one fails the call. */
    private readonly maxAnswerBytes: number,
  ) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Reads the app's actor configuration, retrying while the app is not listening yet (connection refused) up to
   * `waitMs`. An app that answers 404 hosts no actors.
   */
  async readActorConfig(waitMs: number): Promise<AppActorConfig> {
    const deadline = Date.now() + waitMs;
    for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
      try {
        // Not `fetch`: its first use loads Node's fetch implementation, 5–8 MiB of RSS that svcd would keep.
        const res = await appRequest(`${this.baseUrl}/dapr/config`, { method: 'GET', timeoutMs: CONFIG_TIMEOUT_MS, maxBodyBytes: this.maxAnswerBytes, traced: false });
        if (res.status === 404) return { entities: [] };
        if (res.status < 200 || res.status > 299) throw new Error(`GET /dapr/config answered ${res.status}`);
        return parseActorConfig(JSON.parse(res.body.toString('utf8')));
      } catch (err) {
        if (err instanceof RuntimeError || Date.now() + delay > deadline) {
          throw new RuntimeError('ERR_ACTOR_APP_CONFIG', `could not read the actor configuration from the app on port ${this.port}: ${ensureError(err).message}`, { cause: err });
        }
        this.log.debug({ err: ensureError(err).message, retryInMs: delay }, 'app not answering /dapr/config yet');
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** The factory of an app-hosted actor type. */
  actorFactory(type: string): ActorFactory {
    return (id) => new AppHostedActor(this, type, id);
  }

  async call(method: 'PUT' | 'DELETE', path: string, body?: Buffer): Promise<Buffer> {
    let res: AppResponse;
    try {
      res = await appRequest(`${this.baseUrl}${path}`, {
        method,
        ...(body !== undefined && { body, headers: { 'content-type': 'application/json' } }),
        timeoutMs: CALL_TIMEOUT_MS,
        maxBodyBytes: this.maxAnswerBytes,
      });
    } catch (err) {
      throw new RuntimeError('ERR_ACTOR_INVOKE_METHOD', `error invoking the app at ${method} ${path}: ${ensureError(err).message}`, { cause: err });
    }
    if (res.status < 200 || res.status > 299) {
      throw new RuntimeError('ERR_ACTOR_INVOKE_METHOD', `error from actor service: ${method} ${path} answered ${res.status}: ${res.body.toString('utf8').slice(0, 500)}`);
    }
    return res.body;
  }
}

function parseActorConfig(body: unknown): AppActorConfig {
  const b = (body ?? {}) as { entities?: unknown; actorIdleTimeout?: unknown };
  const entities = Array.isArray(b.entities) ? b.entities.filter((e): e is string => typeof e === 'string' && e !== '') : [];
  const idleText = typeof b.actorIdleTimeout === 'string' && b.actorIdleTimeout !== '' ? b.actorIdleTimeout : undefined;
  if (idleText === undefined) return { entities };
  const idle = parseGoDuration(idleText) ?? parseIsoDuration(idleText);
  if (idle === undefined || idle <= 0) throw new RuntimeError('ERR_ACTOR_APP_CONFIG', `the app's actorIdleTimeout '${idleText}' is not a duration`);
  return { entities, actorIdleTimeoutMs: idle };
}

const seg = encodeURIComponent;

/** Reminder and timer `data` is JSON the client sent; the app gets it back as JSON. */
function callbackBody(data: Buffer | undefined, dueTime: string | undefined, period: string | undefined, extra: Record<string, unknown> = {}): Buffer {
  const json = data === undefined || data.length === 0 ? null : (JSON.parse(data.toString('utf8')) as unknown);
  return Buffer.from(JSON.stringify({ data: json, dueTime: dueTime ?? '', period: period ?? '', ...extra }));
}

class AppHostedActor implements Actor {
  constructor(
    private readonly channel: AppChannel,
    private readonly type: string,
    private readonly id: string,
  ) {}

  #path(suffix: string): string {
    return `/actors/${seg(this.type)}/${seg(this.id)}${suffix}`;
  }

  invoke(method: string, data: Buffer | undefined): Promise<Buffer | undefined> {
    return this.channel.call('PUT', this.#path(`/method/${seg(method)}`), data ?? Buffer.alloc(0));
  }

  async onReminder(name: string, data: Buffer | undefined, _ctx: unknown, info: ReminderInfo): Promise<void> {
    await this.channel.call('PUT', this.#path(`/method/remind/${seg(name)}`), callbackBody(data, info.dueTimeText, info.periodText));
  }

  async onTimer(name: string, data: Buffer | undefined, _ctx: unknown, info: TimerInfo): Promise<void> {
    await this.channel.call('PUT', this.#path(`/method/timer/${seg(name)}`), callbackBody(data, info.dueTimeText, info.periodText, { callback: info.callback ?? '' }));
  }

  async onDeactivate(): Promise<void> {
    await this.channel.call('DELETE', this.#path(''));
  }
}
