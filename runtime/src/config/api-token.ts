/**
 * The one rule for a shared secret presented by a caller (the API token over HTTP and gRPC, the replicas' internal
 * token): where it may be carried, and how it is compared. Constant time in the secret's content, so that how long
 * a refusal takes tells nothing about how much of a guess was right.
 */
import { timingSafeEqual } from 'node:crypto';

/** HTTP headers and gRPC metadata keys that carry the API token, read in this order. */
export const API_TOKEN_NAMES = ['svc-api-token', 'dapr-api-token'] as const;

/** Does `given` equal `expected`? Only the lengths are compared in variable time. */
export function secretMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const want = Buffer.from(expected);
  const got = Buffer.from(given);
  return got.length === want.length && timingSafeEqual(got, want);
}
