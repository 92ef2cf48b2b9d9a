import { RuntimeError } from '../../errors/runtime-error.js';
import type { NameResolver } from '../contracts/name-resolution.js';

/**
 * A fixed list (tests, hosts that never change): `configuration.apps` maps `<app-id>` (namespace `default`) or
 * `<app-id>.<namespace>` to the internal addresses of its sidecars. It keeps no shared secret: the sidecars are
 * given the same `SVC_INVOKE_TOKEN`.
 */
export class StaticResolver implements NameResolver {
  readonly kind = 'static';
  readonly #apps = new Map<string, readonly string[]>();

  constructor(configuration: Readonly<Record<string, unknown>>) {
    const apps = configuration.apps;
    if (apps === null || typeof apps !== 'object' || Array.isArray(apps)) throw invalid('configuration.apps must map app ids to lists of host:port addresses');
    for (const [target, addresses] of Object.entries(apps as Record<string, unknown>)) {
      const list = typeof addresses === 'string' ? [addresses] : addresses;
      if (!Array.isArray(list) || !list.every((a) => typeof a === 'string' && /^[^\s:]+:\d+$/.test(a))) throw invalid(`configuration.apps.${target} must be a host:port address or a list of them`);
      this.#apps.set(target.includes('.') ? target : `${target}.default`, list as string[]);
    }
  }

  register(): Promise<void> {
    return Promise.resolve();
  }

  resolve(appId: string, namespace: string): Promise<readonly string[]> {
    return Promise.resolve(this.#apps.get(`${appId}.${namespace}`) ?? []);
  }

  sharedSecret(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function invalid(message: string): RuntimeError {
  return new RuntimeError('ERR_CONFIG_INVALID', `name resolution (static): ${message}`);
}
