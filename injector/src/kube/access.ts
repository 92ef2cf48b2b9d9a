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

/**
 * One line for a failed API call: "403 Forbidden: <the API server's message>" when the API server answered, the
 * transport error otherwise. client-node's own message is a dump of the status, body and headers over many lines,
 * which the injector would pass on to the API server, and so to the pod's creator and the ReplicaSet's events.
 */
export function describeApiFailure(err: unknown): string {
  if (!(err instanceof ApiException)) return (err as Error).message;
  const { code, body } = err as ApiException<unknown>;
  let status: { reason?: string; message?: string } = {};
  try {
    status = (typeof body === 'string' ? JSON.parse(body) : body) as typeof status;
  } catch {
    // not a Status: the code alone
  }
  return `${code} ${status?.reason ?? 'Failure'}${status?.message ? `: ${status.message}` : ''}`;
}
