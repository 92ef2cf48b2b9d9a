/** Where the self-managed TLS bundle lives and where its CA must be trusted; Kubernetes implementations. */
import { AdmissionregistrationV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { InjectorError } from '../errors.js';
import { apiStatus } from '../kube/access.js';
import type { TlsBundle } from './generate.js';

export interface StoredBundle {
  readonly bundle: TlsBundle;
  /** Optimistic-concurrency token (the Secret's resourceVersion). */
  readonly version: string;
}

export interface TlsBundleStore {
  read(): Promise<StoredBundle | undefined>;
  /** `false` when someone else wrote first (create race or stale version): re-read and use theirs. */
  write(bundle: TlsBundle, previous: StoredBundle | undefined): Promise<boolean>;
}

export interface CaBundleTarget {
  /** Makes every webhook of the configuration trust `caPem`; returns how many webhooks changed. */
  ensure(caPem: string): Promise<number>;
}

const KEYS = { caCert: 'ca.crt', caKey: 'ca.key', cert: 'tls.crt', key: 'tls.key' } as const;

function b64(s: string): string {
  return Buffer.from(s).toString('base64');
}

function unb64(s: string | undefined): string {
  return Buffer.from(s ?? '', 'base64').toString('utf8');
}

export class SecretBundleStore implements TlsBundleStore {
  private readonly api: CoreV1Api;

  constructor(kc: KubeConfig, private readonly namespace: string, private readonly name: string) {
    this.api = kc.makeApiClient(CoreV1Api);
  }

  async read(): Promise<StoredBundle | undefined> {
    let secret: V1Secret;
    try {
      secret = await this.api.readNamespacedSecret({ name: this.name, namespace: this.namespace });
    } catch (err) {
      if (apiStatus(err) === 404) return undefined;
      throw new InjectorError('ERR_KUBERNETES_API', `cannot read Secret ${this.namespace}/${this.name}: ${(err as Error).message}`, { cause: err });
    }
    const d = secret.data ?? {};
    return {
      bundle: { ca: { cert: unb64(d[KEYS.caCert]), key: unb64(d[KEYS.caKey]) }, serving: { cert: unb64(d[KEYS.cert]), key: unb64(d[KEYS.key]) } },
      version: secret.metadata?.resourceVersion ?? '',
    };
  }

  async write(bundle: TlsBundle, previous: StoredBundle | undefined): Promise<boolean> {
    const body: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels: { 'app.kubernetes.io/managed-by': 'svc-injector' },
        ...(previous ? { resourceVersion: previous.version } : {}),
      },
      data: { [KEYS.caCert]: b64(bundle.ca.cert), [KEYS.caKey]: b64(bundle.ca.key), [KEYS.cert]: b64(bundle.serving.cert), [KEYS.key]: b64(bundle.serving.key) },
    };
    try {
      if (previous) await this.api.replaceNamespacedSecret({ name: this.name, namespace: this.namespace, body });
      else await this.api.createNamespacedSecret({ namespace: this.namespace, body });
      return true;
    } catch (err) {
      if (apiStatus(err) === 409) return false;
      throw new InjectorError('ERR_KUBERNETES_API', `cannot write Secret ${this.namespace}/${this.name}: ${(err as Error).message}`, { cause: err });
    }
  }
}

export class WebhookCaBundle implements CaBundleTarget {
  private readonly api: AdmissionregistrationV1Api;

  constructor(kc: KubeConfig, private readonly name: string) {
    this.api = kc.makeApiClient(AdmissionregistrationV1Api);
  }

  async ensure(caPem: string): Promise<number> {
    const wanted = b64(caPem);
    try {
      const config = await this.api.readMutatingWebhookConfiguration({ name: this.name });
      const ops = (config.webhooks ?? []).flatMap((w, i) =>
        w.clientConfig.caBundle === wanted ? [] : [{ op: 'add', path: `/webhooks/${i}/clientConfig/caBundle`, value: wanted }],
      );
      if (ops.length === 0) return 0;
      await this.api.patchMutatingWebhookConfiguration({ name: this.name, body: ops }, setHeaderOptions('Content-Type', PatchStrategy.JsonPatch));
      return ops.length;
    } catch (err) {
      throw new InjectorError('ERR_KUBERNETES_API', `cannot set the caBundle of MutatingWebhookConfiguration ${this.name}: ${(err as Error).message}`, { cause: err });
    }
  }
}
