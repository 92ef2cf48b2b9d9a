/**
 * Kubernetes mode: the declarative subscriptions of this pod's namespace, read from the API server
 * (`subscriptions.svc.io`, v2alpha1) and parsed and scoped exactly like Subscription files. A cluster without the
 * Subscription CRD (a chart from before pub/sub) has no declarative subscriptions: a warning, not a failure.
 */
import { apiStatus, type SvcObjectLister } from '../components/kubernetes-loader.js';
import type { Logger } from '../log/logger.js';
import { subscriptionFromDocument } from './subscription-resources.js';
import type { Subscription } from './subscriptions.js';

export const SUBSCRIPTIONS = { plural: 'subscriptions', version: 'v2alpha1' } as const;

export async function loadKubernetesSubscriptions(opts: { appId: string; namespace: string; log: Logger; lister: SvcObjectLister }): Promise<Subscription[]> {
  let objects: unknown[];
  try {
    objects = await opts.lister.list(opts.namespace);
  } catch (err) {
    if (apiStatus(err) !== 404) throw err;
    opts.log.warn({ namespace: opts.namespace }, 'the API server does not serve subscriptions.svc.io (the chart installs the CRD): no declarative subscriptions');
    return [];
  }
  const subs: Subscription[] = [];
  for (const obj of objects) {
    // List items carry apiVersion and kind; add them when a server leaves them out.
    const doc = { apiVersion: 'svc.io/v2alpha1', kind: 'Subscription', ...(obj as object) };
    const name = (doc as { metadata?: { name?: string } }).metadata?.name ?? '(unnamed)';
    const sub = subscriptionFromDocument(doc, `kubernetes: ${opts.namespace}/${name}`, opts.appId, opts.log);
    if (sub) subs.push(sub);
  }
  opts.log.info({ namespace: opts.namespace, listed: objects.length, forThisApp: subs.length }, 'subscriptions read from the Kubernetes API');
  return subs;
}
