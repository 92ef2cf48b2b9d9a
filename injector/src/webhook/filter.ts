/**
 * Which admission requests the injector acts on. Anything else is allowed unchanged: the injector only ever adds
 * to pods that opted in, were created by a trusted creator, and do not have svcd yet (reinvocation is a no-op).
 */
import type { V1Pod } from '@kubernetes/client-node';
import { SIDECAR_CONTAINER_NAME } from '../patch/names.js';
import type { AdmissionRequest } from './admission.js';
import type { CreatorTrust } from './trust.js';

export type FilterResult =
  | { readonly act: false; readonly reason: string; readonly warning?: string }
  | { readonly act: true; readonly pod: V1Pod; readonly namespace: string };

export function filterRequest(req: AdmissionRequest, trust: CreatorTrust): FilterResult {
  if (req.kind?.kind !== 'Pod' || (req.kind.group ?? '') !== '') return { act: false, reason: `not a Pod (${req.kind?.kind ?? 'no kind'})` };
  if (req.operation !== 'CREATE') return { act: false, reason: `operation ${req.operation ?? 'none'} is not CREATE` };
  const pod = req.object;
  if (!pod || typeof pod !== 'object') return { act: false, reason: 'no pod object in the request' };
  if (pod.metadata?.annotations?.['svc.io/enabled']?.toLowerCase() !== 'true') return { act: false, reason: 'svc.io/enabled is not "true"' };
  const all = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  if (all.some((c) => c.name === SIDECAR_CONTAINER_NAME)) return { act: false, reason: 'svcd is already in the pod' };
  if (!trust.isTrusted(req.userInfo)) {
    const who = req.userInfo?.username ?? 'an unknown user';
    return {
      act: false,
      reason: `creator ${who} is not trusted`,
      warning: `svc.io/enabled is "true" but the pod was created by ${who}, which svc-injector does not trust: no sidecar injected (see --allowed-service-accounts / --allowed-groups)`,
    };
  }
  return { act: true, pod, namespace: req.namespace ?? pod.metadata?.namespace ?? 'default' };
}
