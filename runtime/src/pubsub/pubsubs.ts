import type { ComponentManager } from '../components/manager.js';
import { metadataValue, type ComponentSpec } from '../components/spec.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { TopicScopes, type TopicUse } from './topic-scopes.js';
import { isPubSub, type PubSub } from '../components/contracts/pubsub.js';

export interface LoadedPubSub {
  readonly spec: ComponentSpec;
  readonly pubsub: PubSub;
  readonly scopes: TopicScopes;
}

/** The loaded pub/sub components by name, with their topic scopes; resolves names with the API's error codes. */
export class PubSubs {
  readonly #scopes = new Map<string, TopicScopes>();

  constructor(
    private readonly components: ComponentManager,
    private readonly appId: string,
  ) {}

  list(): LoadedPubSub[] {
    return this.components.list('pubsub').flatMap((c) => {
      const found = this.get(c.spec.name);
      return found ? [found] : [];
    });
  }

  get(name: string): LoadedPubSub | undefined {
    const c = this.components.get(name);
    if (!c || c.spec.category !== 'pubsub' || !isPubSub(c.instance)) return undefined;
    let scopes = this.#scopes.get(name);
    if (!scopes) this.#scopes.set(name, (scopes = TopicScopes.fromMetadata((key) => metadataValue(c.spec, key))));
    return { spec: c.spec, pubsub: c.instance, scopes };
  }

  /** The pub/sub `name` for `use` of `topic` by this app, or the API error saying why not. */
  resolve(name: string, topic: string, use: TopicUse): LoadedPubSub {
    if (name === '') throw new RuntimeError('ERR_PUBSUB_EMPTY', 'pubsub name is empty');
    if (this.components.list('pubsub').length === 0) throw new RuntimeError('ERR_PUBSUB_NOT_CONFIGURED', 'no pubsub is configured');
    const found = this.get(name);
    if (!found) {
      const known = this.components.list('pubsub').map((c) => c.spec.name).join(', ');
      throw new RuntimeError('ERR_PUBSUB_NOT_FOUND', `pubsub ${name} not found (configured: ${known})`);
    }
    if (topic === '') throw new RuntimeError('ERR_TOPIC_EMPTY', `topic is empty in pubsub ${name}`);
    const refusal = found.scopes.refusal(use, this.appId, topic);
    if (refusal) throw new RuntimeError('ERR_PUBSUB_FORBIDDEN', `topic ${topic} is not allowed for app id ${this.appId}: ${refusal}`);
    return found;
  }
}
