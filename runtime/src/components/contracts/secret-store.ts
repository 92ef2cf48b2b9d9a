/**
 * The secrets building block's interface: a store answers one secret (a map, as a secret may hold several values)
 * or all it holds. Built-ins and pluggable components implement it; nothing it returns is ever logged.
 */
import type { Component } from '../registry.js';

/** One secret: its values by name (a single-valued secret maps its own key to its value). */
export type Secret = Readonly<Record<string, string>>;

export interface SecretStore extends Component {
  /** Rejects when the store has no secret `key`; the rejection's message must not carry any secret value. */
  getSecret(key: string, metadata: Readonly<Record<string, string>>): Promise<Secret>;
  bulkGetSecret(metadata: Readonly<Record<string, string>>): Promise<Readonly<Record<string, Secret>>>;
}

export function isSecretStore(c: Component): c is SecretStore {
  const s = c as Partial<SecretStore>;
  return typeof s.getSecret === 'function' && typeof s.bulkGetSecret === 'function';
}
