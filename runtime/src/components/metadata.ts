import { isPubSub } from './contracts/pubsub.js';
import type { StateStore } from './contracts/state-store.js';
import type { ComponentManager, LoadedComponent } from './manager.js';

export interface ComponentMetadata {
  name: string;
  type: string;
  version: string;
  origin: 'built-in' | 'pluggable';
  capabilities: string[];
}

function capabilities(c: LoadedComponent): string[] {
  if (c.spec.category === 'state') return [...(c.instance as unknown as StateStore).features()];
  if (isPubSub(c.instance)) return [...c.instance.features()];
  return [...(c.instance.capabilities?.() ?? [])];
}

/** The `components` field of `/v1.0/metadata`. */
export function componentsMetadata(components: ComponentManager): { components: ComponentMetadata[] } {
  return {
    components: components.list().map((c) => ({
      name: c.spec.name,
      type: c.spec.type,
      version: c.spec.version,
      origin: c.origin,
      capabilities: capabilities(c),
    })),
  };
}
