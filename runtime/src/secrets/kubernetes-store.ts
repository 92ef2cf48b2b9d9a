/**
 * `secretstores.kubernetes`: the Secret objects of the pod's namespace, read through the API server when asked
 * (a rotated Secret is seen at once). Only that namespace: the sidecar's service account is granted `get`/`list` on
 * Secrets there and nowhere else. The same reader answers Components' secret references in kubernetes mode when
 * they name no `auth.secretStore`. Imported on demand: the Kubernetes client is heavy.
 */
import type { Secret, SecretStore } from '../components/contracts/secret-store.js';
import { ApiException, CoreV1Api, type KubeConfig } from '../components/kubernetes-client.js';
import { kubernetesConfig } from '../components/kubernetes-loader.js';
import { COMPONENT_API_VERSION, COMPONENT_KIND, parseComponentSpec, type ComponentSpec } from '../components/spec.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { DefaultSecretSource } from './secret-refs.js';

/** `data` is base64 (Kubernetes' own encoding); a Secret without data is a secret without values. */
function decoded(data: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

/** One line for a failure, never the answer's body (a Secret's API answer is the secret itself). */
function reason(err: unknown, what: string, namespace: string): Error {
  if (!(err instanceof ApiException)) return new Error(`cannot ${what} in namespace ${namespace}: ${(err as Error).message}`);
  const code = (err as ApiException<unknown>).code;
  if (code === 404) return new Error(`${what}: not found in namespace ${namespace}`);
  const hint = code === 403 ? `; the pod service account needs get/list on secrets in namespace ${namespace}` : '';
  return new Error(`cannot ${what} in namespace ${namespace}: the API server answered ${code}${hint}`);
}

export class KubernetesSecretStore implements SecretStore {
  readonly #api: CoreV1Api;

  constructor(
    kc: KubeConfig,
    private readonly namespace: string,
  ) {
    this.#api = kc.makeApiClient(CoreV1Api);
  }

  /** In kubernetes mode: the in-cluster service account (or `--kubeconfig`) and the pod's namespace. */
  static forNamespace(kubeconfig: string | undefined, namespace: string | undefined): KubernetesSecretStore {
    if (!namespace) throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', 'secretstores.kubernetes needs the pod namespace (--namespace / NAMESPACE; kubernetes mode)');
    return new KubernetesSecretStore(kubernetesConfig(kubeconfig), namespace);
  }

  /** Secret `key` of the namespace: every value of its `data`. */
  async getSecret(key: string): Promise<Secret> {
    try {
      return decoded((await this.#api.readNamespacedSecret({ name: key, namespace: this.namespace })).data);
    } catch (err) {
      throw reason(err, `get Secret ${key}`, this.namespace);
    }
  }

  async bulkGetSecret(): Promise<Readonly<Record<string, Secret>>> {
    try {
      const list = await this.#api.listNamespacedSecret({ namespace: this.namespace });
      return Object.fromEntries(list.items.map((s) => [s.metadata?.name ?? '', decoded(s.data)]));
    } catch (err) {
      throw reason(err, 'list Secrets', this.namespace);
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Kubernetes mode's default secret store, as the reference system has it (unless a Component takes the name). */
export const DEFAULT_STORE_NAME = 'kubernetes';

export function withDefaultSecretStore(specs: readonly ComponentSpec[]): ComponentSpec[] {
  if (specs.some((s) => s.name === DEFAULT_STORE_NAME)) return [...specs];
  const doc = { apiVersion: COMPONENT_API_VERSION, kind: COMPONENT_KIND, metadata: { name: DEFAULT_STORE_NAME }, spec: { type: 'secretstores.kubernetes', version: 'v1' } };
  return [...specs, parseComponentSpec(doc, 'the default secret store of kubernetes mode')];
}

/** Where Components' secret references without `auth.secretStore` are read in kubernetes mode: the namespace's Secrets. */
export function namespaceSecretSource(kubeconfig: string | undefined, namespace: string | undefined): DefaultSecretSource {
  const store = KubernetesSecretStore.forNamespace(kubeconfig, namespace);
  return { label: `the Kubernetes Secrets of namespace ${namespace}`, read: (name) => store.getSecret(name) };
}
