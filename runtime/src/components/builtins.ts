import { CronBinding } from '../bindings/cron.js';
import { InMemoryPubSub } from '../pubsub/in-memory.js';
import { JetStreamPubSub } from '../pubsub/nats-jetstream.js';
import { RedisStreamsPubSub } from '../pubsub/redis-streams.js';
import { InMemoryStateStore } from '../state/in-memory.js';
import { PostgresStateStore, postgresOptionsFromMetadata } from '../state/postgresql.js';
import { RedisStateStore, redisOptionsFromMetadata } from '../state/redis.js';
import { SqliteStateStore, sqliteOptionsFromMetadata } from '../state/sqlite.js';
import type { Component, ComponentContext, ComponentRegistry } from './registry.js';
import { metadataValue, type ComponentSpec } from './spec.js';

type BuiltinFactory = (get: (name: string) => string | undefined, spec: ComponentSpec, ctx: ComponentContext) => Promise<Component>;

/** Built-in state stores: each factory reads `spec.metadata` and connects, so a bad address fails the init. */
const STATE_STORES: Record<string, BuiltinFactory> = {
  'state.in-memory': () => Promise.resolve(new InMemoryStateStore()),
  'state.sqlite': (get, spec, ctx) => SqliteStateStore.open(sqliteOptionsFromMetadata(get, { componentName: spec.name, dataDir: ctx.dataDir })),
  'state.redis': (get) => RedisStateStore.connect(redisOptionsFromMetadata(get)),
  'state.postgresql': (get) => PostgresStateStore.connect(postgresOptionsFromMetadata(get)),
};

/** Built-in pub/subs. */
const PUBSUBS: Record<string, BuiltinFactory> = {
  'pubsub.in-memory': (get) => Promise.resolve(InMemoryPubSub.fromMetadata(get)),
  'pubsub.redis': (get, _spec, ctx) => RedisStreamsPubSub.connect(get, ctx.log),
  'pubsub.jetstream': (get, _spec, ctx) => JetStreamPubSub.connect(get, ctx.log),
};

/** Built-in bindings. */
const BINDINGS: Record<string, BuiltinFactory> = {
  'bindings.cron': (get, _spec, ctx) => Promise.resolve(CronBinding.fromMetadata(get, ctx.log)),
};

/** Registers every built-in component type. */
export function registerBuiltinComponents(registry: ComponentRegistry): void {
  const groups = [
    ['state', STATE_STORES],
    ['pubsub', PUBSUBS],
    ['bindings', BINDINGS],
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
