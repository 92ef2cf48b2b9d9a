import type { Component, ComponentContext, ComponentRegistry } from './components/registry.js';
import { metadataValue, type ComponentSpec } from './components/spec.js';

type BuiltinFactory = (get: (name: string) => string | undefined, spec: ComponentSpec, ctx: ComponentContext) => Promise<Component>;

/*
 * Each factory imports its module when a component of its type is created, not when svcd starts: the client
 * libraries (ioredis, pg, nats, better-sqlite3) cost start-up time only to the svcd whose resources use them.
 */

/** Built-in state stores: each factory reads `spec.metadata` and connects, so a bad address fails the init. */
const STATE_STORES: Record<string, BuiltinFactory> = {
  'state.in-memory': async () => new (await import('./state/in-memory.js')).InMemoryStateStore(),
  'state.sqlite': async (get, spec, ctx) => {
    const { SqliteStateStore, sqliteOptionsFromMetadata } = await import('./state/sqlite.js');
    return SqliteStateStore.open(sqliteOptionsFromMetadata(get, { componentName: spec.name, dataDir: ctx.dataDir }));
  },
  'state.redis': async (get) => {
    const [{ RedisStateStore }, { redisOptionsFromMetadata }] = await Promise.all([import('./state/redis.js'), import('./stores/redis-connection.js')]);
    return RedisStateStore.connect(redisOptionsFromMetadata(get));
  },
  'state.postgresql': async (get) => {
    const { PostgresStateStore, postgresOptionsFromMetadata } = await import('./state/postgresql.js');
    return PostgresStateStore.connect(postgresOptionsFromMetadata(get));
  },
};

/** Built-in pub/subs. */
const PUBSUBS: Record<string, BuiltinFactory> = {
  'pubsub.in-memory': async (get) => (await import('./pubsub/in-memory.js')).InMemoryPubSub.fromMetadata(get),
  'pubsub.redis': async (get, _spec, ctx) => (await import('./pubsub/redis-streams.js')).RedisStreamsPubSub.connect(get, ctx.log),
  'pubsub.jetstream': async (get, _spec, ctx) => (await import('./pubsub/nats-jetstream.js')).JetStreamPubSub.connect(get, ctx.log),
  'pubsub.sqlite': async (get, spec, ctx) => {
    const { SqlitePubSub, sqlitePubSubOptions } = await import('./pubsub/sqlite-pubsub.js');
    return SqlitePubSub.open(sqlitePubSubOptions(get, { componentName: spec.name, dataDir: ctx.dataDir }), ctx.log);
  },
};

/** Built-in bindings. */
const BINDINGS: Record<string, BuiltinFactory> = {
  'bindings.cron': async (get, _spec, ctx) => (await import('./bindings/cron.js')).CronBinding.fromMetadata(get, ctx.log),
};

/** Built-in secret stores. */
const SECRET_STORES: Record<string, BuiltinFactory> = {
  'secretstores.local.file': async (get, _spec, ctx) => {
    const { LocalFileSecretStore, localFileOptions } = await import('./secrets/local-file.js');
    return LocalFileSecretStore.open(localFileOptions(get), ctx.resourcesPaths);
  },
  'secretstores.local.env': async (get) => new (await import('./secrets/local-env.js')).LocalEnvSecretStore(get('prefix') ?? ''),
  'secretstores.kubernetes': async (_get, _spec, ctx) => (await import('./secrets/kubernetes-store.js')).KubernetesSecretStore.forNamespace(ctx.kubernetes?.kubeconfig, ctx.kubernetes?.namespace),
};

/** Built-in lock stores. */
const LOCK_STORES: Record<string, BuiltinFactory> = {
  'lock.redis': async (get) => {
    const [{ RedisLockStore }, { redisOptionsFromMetadata }] = await Promise.all([import('./lock/redis-lock.js'), import('./stores/redis-connection.js')]);
    return RedisLockStore.connect(redisOptionsFromMetadata(get));
  },
};

/** Built-in configuration stores. */
const CONFIGURATION_STORES: Record<string, BuiltinFactory> = {
  'configuration.redis': async (get, _spec, ctx) => {
    const [{ RedisConfigurationStore }, { redisOptionsFromMetadata }] = await Promise.all([import('./configuration/redis-configuration.js'), import('./stores/redis-connection.js')]);
    return RedisConfigurationStore.connect(redisOptionsFromMetadata(get), ctx.log);
  },
  'configuration.postgresql': async (get, _spec, ctx) => {
    const { PostgresConfigurationStore, postgresConfigurationOptions } = await import('./configuration/postgres-configuration.js');
    return PostgresConfigurationStore.connect(postgresConfigurationOptions(get), ctx.log);
  },
};

/** Registers every built-in component type. */
export function registerBuiltinComponents(registry: ComponentRegistry): void {
  const groups = [
    ['state', STATE_STORES],
    ['pubsub', PUBSUBS],
    ['bindings', BINDINGS],
    ['secretstores', SECRET_STORES],
    ['lock', LOCK_STORES],
    ['configuration', CONFIGURATION_STORES],
  ] as const;
  for (const [category, factories] of groups) {
    for (const [type, factory] of Object.entries(factories)) {
      registry.register({
        type,
        category,
        origin: 'built-in',
        create: (spec, ctx) => factory((name) => metadataValue(spec, name), spec, ctx),
      });
    }
  }
}
