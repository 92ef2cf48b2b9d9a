import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export type ActorStoreKind = 'sqlite' | 'redis' | 'postgresql';

/**
 * A workflow actor state store for one test run: the component YAML svcd loads, a unique app ID (Redis keys are
 * prefixed with it) or table name (PostgreSQL) so parallel runs on the shared servers never meet, and cleanup of
 * exactly what the run created (best effort, with the servers' own CLIs).
 */
export interface ActorStore {
  kind: ActorStoreKind;
  appId: string;
  resources: Record<string, string>;
  cleanup(): void;
}

function component(type: string, metadata: Record<string, string>): string {
  const entries = Object.entries({ ...metadata, actorStateStore: 'true' })
    .map(([name, value]) => `    - name: ${name}\n      value: "${value}"`)
    .join('\n');
  return `apiVersion: svc.io/v1alpha1
kind: Component
metadata:
  name: wfstore
spec:
  type: ${type}
  version: v1
  metadata:
${entries}
`;
}

export function actorStore(kind: ActorStoreKind): ActorStore {
  const suffix = randomBytes(4).toString('hex');
  const appId = `wf-e2e-${suffix}`;
  switch (kind) {
    case 'sqlite':
      return { kind, appId, resources: { 'store.yaml': component('state.sqlite', {}) }, cleanup: () => undefined };
    case 'redis':
      return {
        kind,
        appId,
        resources: { 'store.yaml': component('state.redis', { redisHost: '127.0.0.1:6379' }) },
        // Streamed through xargs: a run can leave more keys than a spawnSync buffer holds. appId is [a-z0-9-].
        cleanup: () => void spawnSync('sh', ['-c', `redis-cli --scan --pattern '${appId}*' | xargs -r -n 500 redis-cli del >/dev/null`]),
      };
    case 'postgresql': {
      const table = `wf_e2e_${suffix}`;
      return {
        kind,
        appId,
        resources: { 'store.yaml': component('state.postgresql', { connectionString: 'postgres://postgres@127.0.0.1:5432/postgres', tableName: table }) },
        cleanup: () => {
          spawnSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-c', `DROP TABLE IF EXISTS ${table}`]);
        },
      };
    }
  }
}
