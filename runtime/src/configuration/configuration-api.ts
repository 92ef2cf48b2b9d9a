/**
 * The configuration building block, free of any transport: reading items, and subscriptions that report changes
 * to whoever subscribed (a gRPC stream, or the app over HTTP: `./app-updates.ts`) until unsubscribed by id.
 */
import { randomUUID } from 'node:crypto';
import type { ComponentManager } from '../components/manager.js';
import { isConfigurationStore, type ConfigurationItems, type ConfigurationRequest, type ConfigurationStore, type ConfigurationWatch } from '../components/contracts/configuration-store.js';
import { componentFailure } from '../errors/catalogue.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Resiliency } from '../resiliency/resiliency.js';

/** What a subscriber is told: its subscription's id and the items that changed. */
export interface ConfigurationUpdate {
  readonly id: string;
  readonly items: ConfigurationItems;
}

export interface ConfigurationSubscriber {
  onUpdate(update: ConfigurationUpdate): void;
  /** The subscription was ended by an unsubscribe (or svcd stopping), not by the subscriber. */
  onEnd?(): void;
}

interface Subscription {
  readonly storeName: string;
  readonly watch: ConfigurationWatch;
  readonly subscriber: ConfigurationSubscriber;
}

export class ConfigurationApi {
  readonly #subscriptions = new Map<string, Subscription>();

  constructor(
    private readonly components: ComponentManager,
    /** The Resiliency policies in force: each store's outbound policy on reads, which may be retried. */
    private readonly resiliency?: () => Resiliency,
  ) {}

  async get(storeName: string, req: ConfigurationRequest): Promise<ConfigurationItems> {
    const store = this.#store(storeName);
    try {
      const policy = this.resiliency?.().forComponent(storeName, 'outbound');
      return await (policy ? policy.run(() => store.get(req), { retryable: () => true }) : store.get(req));
    } catch (err) {
      throw componentFailure('ERR_CONFIGURATION_GET', `failed to get [${req.keys.join(' ')}] from Configuration store ${storeName}`, err);
    }
  }

  /** The subscription's id once the store watches the keys. */
  async subscribe(storeName: string, req: ConfigurationRequest, subscriber: ConfigurationSubscriber): Promise<string> {
    const store = this.#store(storeName);
    const id = randomUUID();
    let watch: ConfigurationWatch;
    try {
      watch = await store.watch(req, (items) => subscriber.onUpdate({ id, items }));
    } catch (err) {
      throw componentFailure('ERR_CONFIGURATION_SUBSCRIBE', `failed to subscribe [${req.keys.join(' ')}] from Configuration store ${storeName}`, err);
    }
    this.#subscriptions.set(id, { storeName, watch, subscriber });
    return id;
  }

  /**
   * Ends a subscription of `storeName` (the store must exist, as Dapr checks). An unknown id is an answer, not an
   * error, with Dapr's wording: gRPC answers it with OK, HTTP with 500.
   */
  async unsubscribe(storeName: string, id: string): Promise<{ ok: true } | { ok: false; message: string }> {
    this.#store(storeName);
    const sub = this.#subscriptions.get(id);
    if (!sub || sub.storeName !== storeName) return { ok: false, message: `failed to unsubscribe to configuration request ${id}: subscription does not exist` };
    await this.#end(id, sub);
    sub.subscriber.onEnd?.();
    return { ok: true };
  }

  /** The subscriber went away (a gRPC stream cancelled): nothing is told. */
  async release(id: string): Promise<void> {
    const sub = this.#subscriptions.get(id);
    if (sub) await this.#end(id, sub);
  }

  /** svcd stopping: every subscription ends (gRPC streams close with OK). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#subscriptions].map(async ([id, sub]) => {
      await this.#end(id, sub);
      sub.subscriber.onEnd?.();
    }));
  }

  async #end(id: string, sub: Subscription): Promise<void> {
    this.#subscriptions.delete(id);
    await sub.watch.close();
  }

  #store(storeName: string): ConfigurationStore {
    const stores = this.components.list('configuration');
    if (stores.length === 0) throw new RuntimeError('ERR_CONFIGURATION_STORE_NOT_CONFIGURED', 'configuration stores not configured');
    const found = stores.find((c) => c.spec.name === storeName);
    if (!found || !isConfigurationStore(found.instance)) throw new RuntimeError('ERR_CONFIGURATION_STORE_NOT_FOUND', `configuration store ${storeName} not found`);
    return found.instance;
  }
}
