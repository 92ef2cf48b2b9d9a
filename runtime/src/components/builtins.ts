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

/** Registers every built-in component type. */
export function registerBuiltinComponents(registry: ComponentRegistry): void {
  for (const [type, factory] of Object.entries(STATE_STORES)) {
    registry.register({
      type,
      category: 'state',
      origin: 'built-in',
      create: (spec, ctx) => factory((name) => metadataValue(spec, name), spec, ctx),
    });
  }
}
