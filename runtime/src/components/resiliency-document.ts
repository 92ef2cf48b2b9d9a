/**
 * A `Resiliency` document among the resources: resiliency/ reads them (resiliency/load-resiliency.ts); the
 * Component loaders pass over them without a word.
 */
export const RESILIENCY_KIND = 'Resiliency';
/** Ours and Dapr's: the same schema, so a Dapr Resiliency file is loaded unchanged. */
export const RESILIENCY_API_VERSIONS: readonly string[] = ['svc.io/v1alpha1', 'dapr.io/v1alpha1'];

export function isResiliencyDocument(doc: unknown): boolean {
  const d = doc as { apiVersion?: unknown; kind?: unknown } | null;
  return typeof d === 'object' && d !== null && d.kind === RESILIENCY_KIND && RESILIENCY_API_VERSIONS.includes(String(d.apiVersion));
}
