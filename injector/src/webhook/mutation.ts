/** One admission review in, one out: filter → (Components, when asked for) → pure patch → response. */
import type { Logger } from 'pino';
import { parseSidecarAnnotations } from '../annotations/sidecar-annotations.js';
import type { ComponentObject } from '../components/component-containers.js';
import type { ComponentSource } from '../components/component-source.js';
import { buildPodPatch, type InjectorSettings } from '../patch/build-patch.js';
import { buildAdmissionReviewResponse, type AdmissionReview } from './admission.js';
import { filterRequest } from './filter.js';
import type { CreatorTrust } from './trust.js';

export interface MutationDeps {
  readonly trust: CreatorTrust;
  /** Undefined without Kubernetes API access. */
  readonly components: ComponentSource | undefined;
  readonly settings: InjectorSettings;
  readonly log: Logger;
}

export class MutationService {
  constructor(private readonly deps: MutationDeps) {}

  /** Throws only when the Components cannot be read: the API server then applies the webhook's failure policy. */
  /**
   * `caller.verified`: the caller presented a client certificate of the configured CA (the API server). Only then
   * may a patch carry literal env values of component containers (component-containers.ts).
   */
  async review(review: AdmissionReview, caller: { verified: boolean }): Promise<AdmissionReview> {
    const req = review.request!;
    const { log } = this.deps;
    const filtered = filterRequest(req, this.deps.trust);
    if (!filtered.act) {
      const meta = req.object?.metadata;
      log.debug({ uid: req.uid, pod: `${req.namespace ?? ''}/${meta?.name ?? meta?.generateName ?? ''}`, reason: filtered.reason }, 'admitted unchanged');
      return buildAdmissionReviewResponse(review, { kind: 'allow', warnings: filtered.warning ? [filtered.warning] : [] });
    }
    let components: readonly ComponentObject[] | undefined = [];
    if (parseSidecarAnnotations(filtered.pod.metadata?.annotations).values.injectPluggableComponents) {
      components = this.deps.components ? await this.deps.components.list(filtered.namespace) : undefined;
    }
    const outcome = buildPodPatch({ pod: filtered.pod, components, settings: this.deps.settings, callerVerified: caller.verified });
    if (outcome.kind === 'deny') {
      log.warn({ uid: req.uid, namespace: filtered.namespace, reason: outcome.reason }, 'pod denied');
      return buildAdmissionReviewResponse(review, { kind: 'deny', reason: outcome.reason });
    }
    log.info({ uid: req.uid, namespace: filtered.namespace, appId: outcome.appId, ops: outcome.patch.length, warnings: outcome.warnings }, 'sidecar injected');
    return buildAdmissionReviewResponse(review, { kind: 'patch', patch: outcome.patch, warnings: outcome.warnings });
  }
}
