/**
 * `secretstores.local.env`: secrets from svcd's environment, read when asked (so a test or wrapper that sets a
 * variable later is seen). With `prefix`, key `db` is variable `<prefix>db` and bulk lists only prefixed variables.
 */
import type { Secret, SecretStore } from '../components/contracts/secret-store.js';

/**
 * svcd's own settings (its API token among them) are never secrets of the app: variables starting with these are
 * not served, whatever the prefix.
 */
const SIDECAR_PREFIXES = ['SVC_', 'DAPR_'];

const isSidecarOwn = (name: string): boolean => SIDECAR_PREFIXES.some((p) => name.toUpperCase().startsWith(p));

export class LocalEnvSecretStore implements SecretStore {
  constructor(
    private readonly prefix: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  getSecret(key: string): Promise<Secret> {
    const name = this.prefix + key;
    const value = isSidecarOwn(name) ? undefined : this.env[name];
    return value === undefined ? Promise.reject(new Error(`environment variable ${name} is not set`)) : Promise.resolve({ [key]: value });
  }

  bulkGetSecret(): Promise<Readonly<Record<string, Secret>>> {
    const out: Record<string, Secret> = {};
    for (const [name, value] of Object.entries(this.env)) {
      if (value === undefined || !name.startsWith(this.prefix) || isSidecarOwn(name)) continue;
      const key = name.slice(this.prefix.length);
      out[key] = { [key]: value };
    }
    return Promise.resolve(out);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
