/**
 * Input bindings at work: each input binding component that the app listens for delivers its events to the app
 * through the app channel — over HTTP `POST /<binding name>` (or the path in the component's `route` metadata),
 * over gRPC OnBindingEvent. svcd first asks whether the app listens for the binding (HTTP: `OPTIONS <path>`, 404
 * means no; gRPC: ListInputBindings); one it does not listen for is left unread. An event the app took is
 * acknowledged (its answer goes back to the component); anything else is retried with the delivery policy of the
 * binding's metadata (docs/bindings.md), then handed back to the component unacknowledged.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppEvents } from '../app/app-events.js';
import type { AppGate } from '../app/app-health.js';
import type { ComponentManager } from '../components/manager.js';
import { metadataValue } from '../components/spec.js';
import { deliveryPolicy, retryDelay, type DeliveryPolicy } from '../delivery/policy.js';
import type { Logger } from '../log/logger.js';
import type { Part } from '../util/lifecycle.js';
import { isInputBinding, type InputEvent } from '../components/contracts/bindings.js';
import { tracingEnabled } from '../tracing/enabled.js';
import { inSpan, SpanKind } from '../tracing/spans.js';

export class InputBindingsHost implements Part {
  readonly name = 'input-bindings';
  readonly #readers: { close(): Promise<void> }[] = [];
  readonly #stopped = new AbortController();

  constructor(
    private readonly components: ComponentManager,
    /** 0: no app channel, so nothing is read. */
    private readonly appPort: number,
    private readonly app: AppEvents,
    private readonly gate: AppGate,
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
      if (!(await this.app.listensForBinding(c.spec.name, path))) {
        this.log.info({ binding: c.spec.name, path }, 'the app does not listen for this input binding: not read');
        continue;
      }
      const binding = c.instance;
      if (!isInputBinding(binding)) continue;
      const spec = c.spec;
      this.#readers.push(await binding.read((event) => (tracingEnabled() ? this.#tracedDeliver(spec, path, event, policy) : this.#deliver(spec.name, path, event, policy))));
      this.log.info({ binding: c.spec.name, path }, 'reading input binding');
    }
  }

  async stop(): Promise<void> {
    this.#stopped.abort();
    await Promise.all(this.#readers.splice(0).map((r) => r.close()));
  }

  /** An event is where a trace begins: a CONSUMER span for its delivery, every attempt (a call to the app) under it. */
  #tracedDeliver(spec: { name: string; type: string }, path: string, event: InputEvent, policy: DeliveryPolicy): Promise<Buffer> {
    const attributes = { 'messaging.system': spec.type.slice(spec.type.indexOf('.') + 1), 'messaging.destination.name': spec.name, 'messaging.operation.type': 'process', 'svc.binding.name': spec.name };
    return inSpan({ name: `process ${spec.name}`, kind: SpanKind.CONSUMER, attributes }, () => this.#deliver(spec.name, path, event, policy));
  }

  async #deliver(binding: string, path: string, event: InputEvent, policy: DeliveryPolicy): Promise<Buffer> {
    for (let attempt = 1; ; attempt++) {
      await this.gate.whenHealthy(this.#stopped.signal);
      const res = await this.app.deliverBinding(binding, path, event, policy.timeoutMs);
      if (res.taken) return res.reply;
      const { reason } = res;
      if (attempt >= policy.maxDeliveryAttempts || this.#stopped.signal.aborted) {
        this.log.warn({ binding, path, attempts: attempt, reason }, 'input binding event not taken by the app');
        throw new Error(reason);
      }
      await sleep(retryDelay(policy, attempt), undefined, { signal: this.#stopped.signal }).catch(() => undefined);
    }
  }
}

const routePath = (path: string): string => (path.startsWith('/') ? path : `/${path}`);
