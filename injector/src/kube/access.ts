import { existsSync } from 'node:fs';
import { ApiException, KubeConfig } from '@kubernetes/client-node';

const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * API access: an explicit kubeconfig, else the in-cluster service account, else none (the injector still runs:
 * manual mode works and inject mode answers with a warning).
 */
export function loadKubeConfig(kubeconfigPath: string | undefined): KubeConfig | undefined {
  const kc = new KubeConfig();
  if (kubeconfigPath) {
    kc.loadFromFile(kubeconfigPath);
    return kc;
  }
  if (process.env.KUBERNETES_SERVICE_HOST && existsSync(IN_CLUSTER_TOKEN)) {
    kc.loadFromCluster();
    return kc;
  }
  return undefined;
}

export function apiStatus(err: unknown): number | undefined {
  return err instanceof ApiException ? (err as ApiException<unknown>).code : undefined;
}
