/**
 * May the app read this secret through the secrets API? The reference system's rule, so a Configuration moved
 * over keeps its meaning: a store without a scope serves everything; a non-empty `allowedSecrets` is the whole
 * answer; otherwise a key in `deniedSecrets` is refused and the rest follow `defaultAccess`. Secret references
 * in Components are the operator's own and are not scoped.
 */
import type { SecretScope } from '../components/secret-scopes-spec.js';

export function isSecretAllowed(scopes: readonly SecretScope[], storeName: string, key: string): boolean {
  const scope = scopes.find((s) => s.storeName === storeName);
  if (!scope) return true;
  if (scope.allowedSecrets.length > 0) return scope.allowedSecrets.includes(key);
  if (scope.deniedSecrets.includes(key)) return false;
  return scope.defaultAccess === 'allow';
}
