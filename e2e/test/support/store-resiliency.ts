/**
 * A Resiliency resource for tests of components whose store goes away: a 2 s timeout, reads retried twice 50 ms
 * apart, and a breaker that opens after `tripAfter` consecutive failures and tries again after 2 s, on the
 * outbound calls of each component named.
 */
export function storeResiliencyYaml(components: readonly string[], tripAfter: number): string {
  const targets = components.map((name) => `      ${name}:\n        outbound:\n          timeout: storeCall\n          retry: readTwice\n          circuitBreaker: storeBreaker\n`).join('');
  return `apiVersion: svc.io/v1alpha1
kind: Resiliency
metadata:
  name: store-policy
spec:
  policies:
    timeouts:
      storeCall: 2s
    retries:
      readTwice:
        policy: constant
        duration: 50ms
        maxRetries: 2
    circuitBreakers:
      storeBreaker:
        maxRequests: 1
        timeout: 2s
        trip: consecutiveFailures >= ${tripAfter}
  targets:
    components:
${targets}`;
}
