/**
 * Reading secrets, free of any transport: the HTTP routes and the gRPC methods call this. Errors name the store
 * and key, and the store's own reason, never a value.
 */
import { isSecretStore, type Secret, type SecretStore } from '../components/contracts/secret-store.js';
import type { ComponentManager } from '../components/manager.js';
import type { SecretScope } from '../components/secret-scopes-spec.js';
import { RuntimeError, ensureError, isRuntimeError } from '../errors/runtime-error.js';
import { isSecretAllowed } from './scopes.js';

type Metadata = Readonly<Record<string, string>>;

export class SecretsApi {
  constructor(
    private readonly components: Pick<ComponentManager, 'get' | 'list'>,
    /** The Configuration's `spec.secrets.scopes`, read per call: it is loaded after this API is built. */
    private readonly scopes: () => readonly SecretScope[],
  ) {}

  async get(storeName: string, key: string, metadata: Metadata = {}): Promise<Secret> {
    const store = this.#store(storeName);
    if (key === '') throw new RuntimeError('ERR_MALFORMED_REQUEST', 'the secret key is required');
    if (!isSecretAllowed(this.scopes(), storeName, key)) {
      throw new RuntimeError('ERR_PERMISSION_DENIED', `access denied by policy to get "${key}" from "${storeName}"`);
    }
    try {
      return await store.getSecret(key, metadata);
    } catch (err) {
      throw this.#failed(`failed getting secret with key ${key} from secret store ${storeName}`, err);
    }
  }

  /** Every secret the store holds that the scopes allow; the others are left out, as the reference system does. */
  async bulk(storeName: string, metadata: Metadata = {}): Promise<Record<string, Secret>> {
    const store = this.#store(storeName);
    let all: Readonly<Record<string, Secret>>;
    try {
      all = await store.bulkGetSecret(metadata);
    } catch (err) {
      throw this.#failed(`failed getting secrets from secret store ${storeName}`, err);
    }
    const scopes = this.scopes();
    return Object.fromEntries(Object.entries(all).filter(([key]) => isSecretAllowed(scopes, storeName, key)));
  }

  #store(name: string): SecretStore {
    const stores = this.components.list('secretstores');
    if (stores.length === 0) throw new RuntimeError('ERR_SECRET_STORES_NOT_CONFIGURED', 'secret store is not configured');
    const c = this.components.get(name);
    if (!c || c.spec.category !== 'secretstores' || !isSecretStore(c.instance)) {
      throw new RuntimeError('ERR_SECRET_STORE_NOT_FOUND', `failed finding secret store with key ${name} (configured: ${stores.map((s) => s.spec.name).join(', ')})`);
    }
    return c.instance;
  }

  #failed(what: string, err: unknown): RuntimeError {
    // A store's own catalogue error (a pluggable component's, say) keeps its code; anything else is ERR_SECRET_GET.
    if (isRuntimeError(err) && err.code !== 'ERROR') return err;
    return new RuntimeError('ERR_SECRET_GET', `${what}: ${ensureError(err).message}`, { cause: err });
  }
}
