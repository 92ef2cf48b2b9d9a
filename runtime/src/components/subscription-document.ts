/**
 * A `Subscription` document among the resources: pub/sub reads them (pubsub/subscription-resources.ts); the
 * Component loaders pass over them without a word.
 */
const SUBSCRIPTION_KIND = 'Subscription';
const API_VERSIONS = new Set(['svc.io/v2alpha1', 'svc.io/v1alpha1', 'dapr.io/v2alpha1', 'dapr.io/v1alpha1']);

export function isSubscriptionDocument(doc: unknown): boolean {
  const d = doc as { apiVersion?: unknown; kind?: unknown } | null;
  return typeof d === 'object' && d !== null && d.kind === SUBSCRIPTION_KIND && API_VERSIONS.has(String(d.apiVersion));
}
