/**
 * The key a lock has in its store, as Dapr builds it (pkg/components/lock/lock_config.go) so svc and daprd
 * sharing a Redis contend for the same keys: `lock||<prefix>||<resourceId>`. The prefix comes from the component's
 * `keyPrefix` metadata: `appid` (default; no prefix with an empty app id), `name` (the store's name), `none`, or
 * any other string as it is, lower-cased. Unlike state keys there is no `namespace` strategy.
 */
import { malformedRequest } from '../errors/catalogue.js';
import { KEY_SEPARATOR } from '../state/key-prefix.js';

const API_PREFIX = 'lock';

export interface LockKeyContext {
  readonly appId: string;
  readonly storeName: string;
  /** The store's `keyPrefix` metadata. */
  readonly keyPrefix: string | undefined;
}

/** Throws 400 when the resource id or a custom prefix holds the separator: it would alias another app's keys. */
export function lockKey(resourceId: string, ctx: LockKeyContext): string {
  const strategy = (ctx.keyPrefix || 'appid').toLowerCase();
  for (const part of [resourceId, strategy]) {
    if (part.includes(KEY_SEPARATOR)) throw malformedRequest(`input key/keyPrefix '${part}' can't contain '${KEY_SEPARATOR}'`);
  }
  const prefix = strategy === 'appid' ? ctx.appId : strategy === 'name' ? ctx.storeName : strategy === 'none' ? '' : strategy;
  return [API_PREFIX, ...(prefix === '' ? [] : [prefix]), resourceId].join(KEY_SEPARATOR);
}
