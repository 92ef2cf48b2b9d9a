/**
 * State key prefixing: the API stores `<prefix>||<key>` so apps sharing a store do not see each other's keys.
 * The strategy comes from the component's `keyPrefix` metadata (matched without case):
 * `appid` (default) → app id, `none` → no prefix, `name` → store name, `namespace` → `<NAMESPACE>.<appId>`,
 * anything else → that string, lower-cased. An empty app id means no prefix for `appid` and `namespace`.
 */
import { RuntimeError } from '../errors/runtime-error.js';

export const KEY_SEPARATOR = '||';

export interface KeyPrefixContext {
  readonly appId: string;
  readonly storeName: string;
  /** The `NAMESPACE` the process runs in, if any. */
  readonly namespace: string | undefined;
}

/** The prefix for a store, or undefined for none; throws 400 when a custom prefix contains the separator. */
export function stateKeyPrefix(keyPrefix: string | undefined, ctx: KeyPrefixContext): string | undefined {
  const strategy = (keyPrefix ?? '').toLowerCase();
  switch (strategy) {
    case '':
    case 'appid':
      return ctx.appId || undefined;
    case 'none':
      return undefined;
    case 'name':
      return ctx.storeName;
    case 'namespace':
      if (!ctx.appId) return undefined;
      return ctx.namespace ? `${ctx.namespace}.${ctx.appId}` : ctx.appId;
    default:
      if (strategy.includes(KEY_SEPARATOR)) throw illegalKey(strategy);
      return strategy;
  }
}

function illegalKey(key: string): RuntimeError {
  return new RuntimeError('ERR_MALFORMED_REQUEST', `input key/keyPrefix '${key}' can't contain '${KEY_SEPARATOR}'`);
}

/** Rejects keys the API cannot store faithfully: empty, containing the separator, or containing NUL. */
export function assertValidStateKey(key: string): void {
  if (key === '') throw new RuntimeError('ERR_MALFORMED_REQUEST', '"key" is a required field');
  if (key.includes(KEY_SEPARATOR)) throw illegalKey(key);
  if (key.includes('\u0000')) throw new RuntimeError('ERR_MALFORMED_REQUEST', 'input key must not contain NUL characters');
}

/** Maps API keys to store keys and back, for one store. */
export class StateKeyMapper {
  constructor(private readonly prefix: string | undefined) {}

  /** Validates the key and adds the prefix. */
  toStoreKey(key: string): string {
    assertValidStateKey(key);
    return this.prefix === undefined ? key : `${this.prefix}${KEY_SEPARATOR}${key}`;
  }

  /** Removes this store's prefix from a key a store returned; other keys pass through unchanged. */
  fromStoreKey(storeKey: string): string {
    const head = this.prefix === undefined ? undefined : `${this.prefix}${KEY_SEPARATOR}`;
    return head !== undefined && storeKey.startsWith(head) ? storeKey.slice(head.length) : storeKey;
  }
}
