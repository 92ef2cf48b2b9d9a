/**
 * Input bindings at work: each input binding component that the app listens for delivers its events to the app,
 * `POST /<binding name>` (or the path in the component's `route` metadata), the event's data as the body and its
 * metadata as headers of the same names. svcd first asks `OPTIONS <path>`: an app answering 404 does not listen for
 * that binding and it is left unread. A 2xx answer is the event's acknowledgement (its body goes back to the
 * component); anything else is retried with the delivery policy of the binding's metadata (docs/bindings.md),
 * then handed back to the component unacknowledged.
 */
import { appRequest } from '../app/app-http.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ComponentManager } from '../components/manager.js';
import { metadataValue } from '../components/spec.js';
import { deliveryPolicy, retryDelay, type DeliveryPolicy } from '../delivery/policy.js';
import { ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import type { Part } from '../util/lifecycle.js';
import { isInputBinding, type InputEvent } from './types.js';

const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'connection', 'transfer-encoding', 'keep-alive', 'expect', 'upgrade', 'te', 'trailer']);

export class InputBindingsHost implements Part {
  readonly name = 'input-bindings';
  readonly #readers: { close(): Promise<void> }[] = [];
  readonly #stopped = new AbortController();

  constructor(
    private readonly components: ComponentManager,
    /** 0: no app channel, so nothing is read. */
    private readonly appPort: number,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const inputs = this.components.list('bindings').filter((c) => isInputBinding(c.instance));
    if (inputs.length === 0) return;
    if (this.appPort === 0) {
      this.log.warn({ bindings: inputs.map((c) => c.spec.name) }, 'input bindings are configured but svcd has no --app-port to deliver to: not read');
      return;
    }
    for (const c of inputs) {
      const path = routePath(metadataValue(c.spec, 'route') || `/${c.spec.name}`);
      const policy = deliveryPolicy(c.spec.metadata, `component '${c.spec.name}' (${c.spec.source})`, 'ERR_COMPONENT_SPEC_INVALID');
      if (!(await this.#appListens(path))) {
        this.log.info({ binding: c.spec.name, path }, 'the app does not listen for this input binding (OPTIONS answered 404): not read');
        continue;
      }
      const binding = c.instance;
      if (!isInputBinding(binding)) continue;
      this.#readers.push(await binding.read((event) => this.#deliver(c.spec.name, path, event, policy)));
      this.log.info({ binding: c.spec.name, path }, 'reading input binding');
    }
  }

  async stop(): Promise<void> {
    this.#stopped.abort();
    await Promise.all(this.#readers.splice(0).map((r) => r.close()));
  }

  async #appListens(path: string): Promise<boolean> {
    try {
      const res = await fetch(`http://127.0.0.1:${this.appPort}${path}`, { method: 'OPTIONS', signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer();
      return res.status !== 404;
    } catch {
      return true; // not answering yet: deliveries retry until it does
    }
  }

  async #deliver(binding: string, path: string, event: InputEvent, policy: DeliveryPolicy): Promise<Buffer> {
    const headers: Record<string, string> = { 'content-type': event.contentType || 'application/json' };
    // As Dapr apps read them: each metadata entry a header of its own name (none that would change the request).
    for (const [k, v] of Object.entries(event.metadata)) if (/^[\w.-]+$/.test(k) && !RESERVED_HEADERS.has(k.toLowerCase()) && /^[\t\x20-\x7e]*$/.test(v)) headers[k] = v;
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      try {
        const res = await appRequest(`http://127.0.0.1:${this.appPort}${path}`, { method: 'POST', body: event.data, headers, timeoutMs: policy.timeoutMs });
        if (res.status >= 200 && res.status <= 299) return res.body;
        reason = `the app answered ${res.status}`;
      } catch (err) {
        reason = `cannot deliver to the app: ${ensureError(err).message}`;
      }
      if (attempt >= policy.maxDeliveryAttempts || this.#stopped.signal.aborted) {
        this.log.warn({ binding, path, attempts: attempt, reason }, 'input binding event not taken by the app');
        throw new Error(reason);
      }
      await sleep(retryDelay(policy, attempt), undefined, { signal: this.#stopped.signal }).catch(() => undefined);
    }
  }
}

const routePath = (path: string): string => (path.startsWith('/') ? path : `/${path}`);
