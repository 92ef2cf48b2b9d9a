/**
 * Kubernetes mode: the Resiliency objects of the pod's namespace (`resiliencies.svc.io`), read with list rights,
 * those whose scopes hold the app id. Imported on demand, like the rest of the Kubernetes client.
 */
import { apiStatus, type SvcObjectLister, type SvcResource } from '../components/kubernetes-loader.js';
import type { Logger } from '../log/logger.js';
import { NO_RESILIENCY, resiliencyFor, type LoadedResiliency } from './load-resiliency.js';

export const RESILIENCIES: SvcResource = { plural: 'resiliencies', version: 'v1alpha1' };

export async function loadKubernetesResiliency(appId: string, namespace: string, lister: SvcObjectLister, log: Logger): Promise<LoadedResiliency> {
  let objects: unknown[];
  try {
    objects = await lister.list(namespace);
  } catch (err) {
    // A chart from before Resiliency objects (no CRD, or no list right): svcd runs without policies, and says so.
    const status = apiStatus(err);
    if (status !== 404 && status !== 403) throw err;
    log.warn({ namespace, status }, 'cannot list resiliencies.svc.io (install the current chart for its CRD and RBAC): no Resiliency policies');
    return NO_RESILIENCY;
  }
  // A listed object may come without apiVersion and kind: they are the list's.
  const documents = objects.map((o) => {
    const doc = { apiVersion: 'svc.io/v1alpha1', kind: 'Resiliency', ...(o as object) };
    return { doc, source: `kubernetes: ${namespace}/${(o as { metadata?: { name?: string } }).metadata?.name ?? '(unnamed)'}` };
  });
  return resiliencyFor(appId, documents, log);
}
