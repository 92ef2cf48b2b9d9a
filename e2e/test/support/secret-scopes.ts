/**
 * A Configuration resource (`--config <name>`) whose `secrets.scopes` let the app read every secret of `storeName`
 * but `denied`: those stay for components (`secretKeyRef`) only.
 */
export function secretScopesConfiguration(name: string, storeName: string, denied: readonly string[]): string {
  return `apiVersion: dapr.io/v1alpha1
kind: Configuration
metadata:
  name: ${name}
spec:
  secrets:
    scopes:
      - storeName: ${storeName}
        defaultAccess: allow
        deniedSecrets: ${JSON.stringify(denied)}
`;
}
