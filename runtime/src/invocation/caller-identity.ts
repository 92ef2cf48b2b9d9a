import { secretMatches } from '../config/api-token.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { INVOKE_TOKEN_METADATA } from '../internal/stream-service.js';
import type { AppRef } from './target.js';

/** Reads one value of the call's metadata. */
export type MetadataReader = (name: string) => string | undefined;

/**
 * How sidecars know each other on the internal port: what a calling sidecar presents, and how the receiving one
 * turns that into the caller's identity. The caller's app never writes its identity: its headers are dropped.
 */
export interface CallerIdentity {
  /** Metadata every call of this sidecar carries. */
  credentials(): Promise<Readonly<Record<string, string>>>;
  /**
   * The calling app, proven by the call's metadata; `claimed` is what the calling sidecar says it is. Throws
   * ERR_DIRECT_INVOKE_CALLER_UNAUTHENTICATED when the proof is missing or does not hold.
   */
  authenticate(metadata: MetadataReader, claimed: AppRef): Promise<AppRef>;
  /** For logs and metadata: `shared-secret`, `kubernetes`. */
  readonly kind: string;
}

export function callerUnauthenticated(why: string): RuntimeError {
  return new RuntimeError('ERR_DIRECT_INVOKE_CALLER_UNAUTHENTICATED', `the calling sidecar is not authenticated: ${why}`);
}

/**
 * Standalone: every sidecar holds one shared secret (`SVC_INVOKE_TOKEN`, or the one the name resolution store
 * keeps) and states its own app id. Whoever holds the secret is trusted to state it truly: the secret is the
 * sidecars', never the apps' (docs/security.md).
 */
export class SharedSecretIdentity implements CallerIdentity {
  readonly kind = 'shared-secret';

  constructor(private readonly secret: () => string | undefined) {}

  credentials(): Promise<Readonly<Record<string, string>>> {
    return Promise.resolve({ [INVOKE_TOKEN_METADATA]: this.secret() ?? '' });
  }

  authenticate(metadata: MetadataReader, claimed: AppRef): Promise<AppRef> {
    const expected = this.secret();
    const presented = metadata(INVOKE_TOKEN_METADATA);
    if (!expected || !secretMatches(expected, presented)) {
      return Promise.reject(callerUnauthenticated(presented === undefined ? 'no shared invocation secret presented' : 'wrong shared invocation secret'));
    }
    return Promise.resolve(claimed);
  }
}
