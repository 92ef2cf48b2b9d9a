import * as grpc from '@grpc/grpc-js';
import type { SecretStoreHandlers } from '@svc/proto/gen/svc/proto/components/v1/SecretStore.js';
import { plainError } from './grpc-errors.js';
import { Instances, unary } from './instances.js';

/**
 * A "vault" secret store: each instance serves the Component metadata entries whose names start with `secret.`,
 * as single-valued secrets without that prefix (`secret.db-password: x` → secret `db-password`). Enough to show a
 * pluggable secret store end to end; a real one would read a vault.
 */
const PREFIX = 'secret.';

export function secretStoreService(): SecretStoreHandlers {
  const instances = new Instances<ReadonlyMap<string, string>>('secret store');
  return {
    Init: unary((call) => {
      const properties = call.request.metadata?.properties ?? {};
      const secrets = Object.entries(properties).filter(([k]) => k.startsWith(PREFIX));
      instances.init(call, () => new Map(secrets.map(([k, v]) => [k.slice(PREFIX.length), v])));
      return {};
    }),
    Features: unary(() => ({ features: [] })),
    Get: unary((call) => {
      const value = instances.of(call).get(call.request.key);
      if (value === undefined) throw plainError(grpc.status.NOT_FOUND, `secret ${call.request.key} not found`);
      return { data: { [call.request.key]: value } };
    }),
    BulkGet: unary((call) => ({ data: Object.fromEntries([...instances.of(call)].map(([k, v]) => [k, { secrets: { [k]: v } }])) })),
    Ping: unary(() => ({})),
  };
}
