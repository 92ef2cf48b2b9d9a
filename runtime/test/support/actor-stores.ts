import { randomBytes } from 'node:crypto';
import { componentYaml } from './components.js';
import { deleteRedisKeysWithPrefix, dropTestPostgresTable } from './service-cleanup.js';
import { TEST_POSTGRES_URL, TEST_REDIS_HOST } from './services.js';

export type ActorStoreKind = 'sqlite' | 'redis' | 'postgresql';

export const ACTOR_STORE_KINDS: readonly ActorStoreKind[] = ['sqlite', 'redis', 'postgresql'];

/**
 * A workflow/actor state store for one test or bench run: the component YAML svcd loads, a unique app ID (Redis
 * keys are prefixed with it) and table name (PostgreSQL) so parallel runs on the shared servers never meet, and
 * `cleanup()` that removes exactly what the run created there (SQLite lives in svcd's own data folder).
 */
export interface ActorStore {
  readonly kind: ActorStoreKind;
  readonly appId: string;
  /** For `SvcdProcess.start({ resources })`: one `wfstore` component with `actorStateStore: "true"`. */
  readonly resources: Record<string, string>;
  cleanup(): Promise<void>;
}

export function actorStore(kind: ActorStoreKind, appIdPrefix = 'wftest'): ActorStore {
  const suffix = randomBytes(4).toString('hex');
  const appId = `${appIdPrefix}-${suffix}`;
  const store = (type: string, metadata: Record<string, string>, cleanup: () => Promise<void>): ActorStore => ({
    kind,
    appId,
    resources: { 'store.yaml': componentYaml('wfstore', type, { ...metadata, actorStateStore: 'true' }) },
    cleanup,
  });
  switch (kind) {
    case 'sqlite':
      return store('state.sqlite', {}, () => Promise.resolve());
    case 'redis':
      return store('state.redis', { redisHost: TEST_REDIS_HOST }, () => deleteRedisKeysWithPrefix(appId));
    case 'postgresql': {
      const table = `wf_${suffix}`;
      return store('state.postgresql', { connectionString: TEST_POSTGRES_URL, tableName: table }, () => dropTestPostgresTable(table));
    }
  }
}
