/**
 * Secret references in Components (`spec.metadata[].secretKeyRef` with `auth.secretStore`), resolved just before
 * the component starts, so its factory sees plain metadata. Messages name the component, the entry, the store and
 * the secret, never a value; the resolved spec lives only in the component manager (not logged, not in
 * `/v1.0/metadata`, which shows no metadata).
 */
import { isSecretStore, type Secret } from '../components/contracts/secret-store.js';
import type { ComponentManager, PrepareSpec } from '../components/manager.js';
import { componentLabel, type ComponentSpec } from '../components/spec.js';
import { RuntimeError, ensureError } from '../errors/runtime-error.js';

/** Where a secret is read when no `auth.secretStore` is named (kubernetes mode: the namespace's Secret object). */
export interface DefaultSecretSource {
  /** How messages name it. */
  readonly label: string;
  readonly read: (secretName: string) => Promise<Secret>;
}

export interface SecretRefOptions {
  readonly components: Pick<ComponentManager, 'get'>;
  /** Undefined (standalone): a reference needs `auth.secretStore`. */
  readonly byDefault?: DefaultSecretSource;
}

function reader(spec: ComponentSpec, opts: SecretRefOptions): { label: string; read: (secretName: string) => Promise<Secret> } {
  if (spec.secretStore === undefined) {
    if (opts.byDefault) return opts.byDefault;
    throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `${componentLabel(spec)}: secretKeyRef needs auth.secretStore (the secret store to read it from)`);
  }
  const store = opts.components.get(spec.secretStore);
  if (!store || store.spec.category !== 'secretstores' || !isSecretStore(store.instance)) {
    throw new RuntimeError('ERR_COMPONENT_INIT', `${componentLabel(spec)}: auth.secretStore ${spec.secretStore} is not a loaded secret store`);
  }
  const instance = store.instance;
  return { label: `secret store ${spec.secretStore}`, read: (secretName) => instance.getSecret(secretName, {}) };
}

/** The `PrepareSpec` svcd gives the component manager. */
export function secretRefResolver(opts: SecretRefOptions): PrepareSpec {
  return async (spec) => {
    const entries = Object.entries(spec.secretRefs);
    if (entries.length === 0) return spec;
    const source = reader(spec, opts);
    const metadata: Record<string, string> = { ...spec.metadata };
    for (const [entry, ref] of entries) {
      let secret: Secret;
      try {
        secret = await source.read(ref.name);
      } catch (err) {
        throw new RuntimeError('ERR_COMPONENT_INIT', `${componentLabel(spec)}: metadata ${entry}: cannot read secret ${ref.name} from ${source.label}: ${ensureError(err).message}`, { cause: err });
      }
      const value = secret[ref.key];
      if (value === undefined) throw new RuntimeError('ERR_COMPONENT_INIT', `${componentLabel(spec)}: metadata ${entry}: secret ${ref.name} in ${source.label} has no key ${ref.key}`);
      metadata[entry] = value;
    }
    return { ...spec, metadata, secretRefs: {} };
  };
}
