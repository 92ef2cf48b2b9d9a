/** AdmissionReview (admission.k8s.io/v1) as the injector reads and writes it, and the pure response builder. */
import type { V1Pod } from '@kubernetes/client-node';
import type { JsonPatchOp } from '../patch/json-patch.js';
import { admissionRequestProblem } from './review-shape.js';
import type { AdmissionUser } from './trust.js';

export interface AdmissionRequest {
  readonly uid: string;
  readonly kind?: { readonly group?: string; readonly version?: string; readonly kind?: string };
  readonly operation?: string;
  readonly namespace?: string;
  readonly userInfo?: AdmissionUser;
  readonly object?: V1Pod;
  readonly dryRun?: boolean;
}

export interface AdmissionReview {
  readonly apiVersion: string;
  readonly kind: 'AdmissionReview';
  readonly request?: AdmissionRequest;
  readonly response?: AdmissionResponse;
}

export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly patchType?: 'JSONPatch';
  readonly patch?: string;
  readonly warnings?: string[];
  readonly status?: { readonly code: number; readonly message: string };
}

export type AdmissionDecision =
  | { readonly kind: 'allow'; readonly warnings?: readonly string[] }
  | { readonly kind: 'patch'; readonly patch: readonly JsonPatchOp[]; readonly warnings?: readonly string[] }
  | { readonly kind: 'deny'; readonly reason: string };

/** Reads a request body into an AdmissionReview with a request and a uid, or returns why it is not one. */
export function decodeAdmissionReview(body: unknown): AdmissionReview | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body is not a JSON object';
  const review = body as Partial<AdmissionReview>;
  if (review.kind !== 'AdmissionReview') return 'kind must be AdmissionReview';
  if (review.apiVersion !== 'admission.k8s.io/v1' && review.apiVersion !== 'admission.k8s.io/v1beta1') return 'apiVersion must be admission.k8s.io/v1';
  if (typeof review.request !== 'object' || review.request === null) return 'request is required';
  if (typeof review.request.uid !== 'string' || review.request.uid === '') return 'request.uid is required';
  return admissionRequestProblem(review.request) ?? (review as AdmissionReview);
}

/** API servers may cut longer warnings; ours stay readable within this. */
const MAX_WARNING_LENGTH = 256;

export function buildAdmissionReviewResponse(review: AdmissionReview, decision: AdmissionDecision): AdmissionReview {
  const uid = review.request?.uid ?? '';
  const warnings = decision.kind === 'deny' ? [] : (decision.warnings ?? []).map((w) => (w.length > MAX_WARNING_LENGTH ? `${w.slice(0, MAX_WARNING_LENGTH - 1)}…` : w));
  let response: AdmissionResponse;
  if (decision.kind === 'deny') response = { uid, allowed: false, status: { code: 400, message: decision.reason } };
  else if (decision.kind === 'patch' && decision.patch.length > 0) {
    response = { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(decision.patch)).toString('base64') };
  } else response = { uid, allowed: true };
  if (warnings.length > 0) response = { ...response, warnings };
  return { apiVersion: review.apiVersion, kind: 'AdmissionReview', response };
}
