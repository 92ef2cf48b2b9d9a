import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { CallerReview, ReviewedCaller } from '../components/kubernetes-callers.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { ExpiringMap } from '../util/expiring-map.js';
import { callerUnauthenticated, type CallerIdentity, type MetadataReader } from './caller-identity.js';
import type { AppRef } from './target.js';

/** The metadata that carries the calling sidecar's ServiceAccount token. */
export const CALLER_TOKEN_METADATA = 'svc-caller-token';
/** A reviewed token is trusted until this long before it expires, and never longer than REVIEW_KEPT_MS. */
const EXPIRY_MARGIN_MS = 30_000;
/**
 * A token stays valid until it expires even when its pod is deleted, unless reviewed again: the API server then
 * refuses it. Reviewing each token again after this long bounds how long a deleted pod's token keeps working.
 */
const REVIEW_KEPT_MS = 10 * 60_000;
const MAX_REVIEWS_KEPT = 1024;

export interface KubernetesIdentityOptions {
  /** The projected token this sidecar presents (`--invoke-token-file`). */
  readonly tokenFile: string;
  /** The API server's review of a presented token, connected on first use. */
  readonly review: () => Promise<CallerReview>;
  readonly now?: () => number;
}

/** A JWT's `exp` in epoch ms, read without checking the signature (the review did that). */
function expiryOf(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Kubernetes mode: a calling sidecar presents its pod's projected ServiceAccount token (audience `svc.io/invoke`,
 * so that the called sidecar cannot replay it to the API server); the called one has the API server review it and
 * takes the app id from the token's pod. Reviews are kept by the token's hash, so a caller costs one review per
 * token, not per call.
 */
export class KubernetesIdentity implements CallerIdentity {
  readonly kind = 'kubernetes';
  readonly #reviewed: ExpiringMap<string, Promise<ReviewedCaller>>;
  readonly #now: () => number;
  #review: Promise<CallerReview> | undefined;
  /** The token last read, and which version of the file it came from. */
  #token: { readonly version: string; readonly value: string } | undefined;

  constructor(private readonly o: KubernetesIdentityOptions) {
    this.#now = o.now ?? Date.now;
    this.#reviewed = new ExpiringMap(MAX_REVIEWS_KEPT, this.#now);
  }

  /**
   * The kubelet rotates the projected token by swapping the file (a new inode); a stat per call notices that and
   * costs far less than the call.
   */
  async credentials(): Promise<Readonly<Record<string, string>>> {
    try {
      const file = await stat(this.o.tokenFile);
      const version = `${file.ino}:${file.mtimeMs}:${file.size}`;
      if (this.#token?.version !== version) this.#token = { version, value: (await readFile(this.o.tokenFile, 'utf8')).trim() };
      return { [CALLER_TOKEN_METADATA]: this.#token.value };
    } catch (err) {
      throw new RuntimeError('ERR_DIRECT_INVOKE', `cannot read this sidecar's invocation token ${this.o.tokenFile}: ${(err as Error).message} (the injector mounts it; see --invoke-token-file)`, { cause: err });
    }
  }

  async authenticate(metadata: MetadataReader, claimed: AppRef): Promise<AppRef> {
    const token = metadata(CALLER_TOKEN_METADATA);
    if (!token) throw callerUnauthenticated('no ServiceAccount token presented');
    const caller = await this.#reviewOnce(token);
    if (caller.appId !== claimed.appId || caller.namespace !== claimed.namespace) {
      throw callerUnauthenticated(`its token belongs to app ${caller.appId} in namespace ${caller.namespace} (pod ${caller.pod}), not ${claimed.appId} in ${claimed.namespace}`);
    }
    return { appId: caller.appId, namespace: caller.namespace };
  }

  /** Concurrent calls with one token share one review; only an accepted token is kept. */
  #reviewOnce(token: string): Promise<ReviewedCaller> {
    const key = createHash('sha256').update(token).digest('base64url');
    const kept = this.#reviewed.get(key);
    if (kept) return kept;
    const review = this.#reviewToken(token);
    const now = this.#now();
    const expiry = expiryOf(token) ?? now;
    this.#reviewed.set(key, review, Math.min(expiry - EXPIRY_MARGIN_MS, now + REVIEW_KEPT_MS));
    review.catch(() => this.#reviewed.delete(key));
    return review;
  }

  async #reviewToken(token: string): Promise<ReviewedCaller> {
    this.#review ??= this.o.review();
    const result = await (await this.#review)(token);
    if ('refused' in result) throw callerUnauthenticated(result.refused);
    return result;
  }
}

/** The API server's review, loaded on demand: the Kubernetes client is heavy and standalone svcd never needs it. */
export async function apiServerReview(kubeconfig: string | undefined): Promise<CallerReview> {
  const [{ kubernetesConfig }, callers] = await Promise.all([import('../components/kubernetes-loader.js'), import('../components/kubernetes-callers.js')]);
  return callers.apiServerCallerReview(kubernetesConfig(kubeconfig));
}
