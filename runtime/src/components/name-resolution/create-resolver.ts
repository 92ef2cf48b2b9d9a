import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { parseDuration } from '../../config/parse-values.js';
import { RuntimeError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import type { NameResolutionSpec } from '../configuration-resource.js';
import type { NameResolver } from '../contracts/name-resolution.js';
import { metadataValue, type ComponentSpec } from '../spec.js';
import { KubernetesResolver, type PodSources } from './kubernetes-resolver.js';
import { LeaseRegistry, type RegistryBackend } from './lease-registry.js';
import { StaticResolver } from './static-resolver.js';

export interface ResolverContext {
  /** Kubernetes mode's default is the API server's pods; standalone's, a store the replicas share. */
  readonly mode: 'standalone' | 'kubernetes';
  /** `--kubeconfig`; undefined: the in-cluster service account (Kubernetes resolution only). */
  readonly kubeconfig: string | undefined;
  /** The actor state store's spec, if any: its Redis or PostgreSQL is the one the replicas share. */
  readonly actorStore: ComponentSpec | undefined;
  readonly log: Logger;
}

export const NAME_RESOLVERS = ['kubernetes', 'sqlite', 'redis', 'postgresql', 'static'] as const;

const DEFAULT_LEASE_TTL_MS = 10_000;

/** The host-wide registry file of the standalone default. */
export function defaultRegistryFile(): string {
  return path.join(os.homedir(), '.svc', 'name-registry.db');
}

/**
 * The resolver the Configuration names, or the mode's default: in Kubernetes mode the pods of the app id; in
 * standalone mode the Redis or PostgreSQL of the actor state store when it is one of those (the store the replicas
 * already share), else the host's SQLite registry file. Each registry's module (and its client: ioredis, pg) is
 * imported only when chosen: evaluating both clients was a tenth of svcd's start-up.
 */
export async function createNameResolver(spec: NameResolutionSpec | undefined, ctx: ResolverContext): Promise<NameResolver> {
  const chosen = spec ?? (ctx.mode === 'kubernetes' ? { component: 'kubernetes', configuration: {} } : defaultSpec(ctx.actorStore));
  const conf = chosen.configuration;
  const strings = Object.fromEntries(Object.entries(conf).flatMap(([k, v]) => (v === undefined || v === null ? [] : [[k, typeof v === 'string' ? v : JSON.stringify(v)]])));
  // Case-insensitive, as component metadata is read: the default passes the actor store's metadata on.
  const get = (name: string): string | undefined => metadataValue({ metadata: strings }, name);
  if (chosen.component === 'static') return new StaticResolver(conf);
  if (chosen.component === 'kubernetes') return new KubernetesResolver({ connect: () => apiServerPods(ctx.kubeconfig), log: ctx.log });
  const lease = (backend: RegistryBackend) =>
    new LeaseRegistry(backend, { ttlMs: get('leaseTtl') ? parseDuration(get('leaseTtl')!) : DEFAULT_LEASE_TTL_MS, log: ctx.log, newSecret: () => randomBytes(32).toString('base64url') });
  switch (chosen.component) {
    case 'sqlite': {
      const { SqliteRegistry } = await import('./sqlite-registry.js');
      return lease(new SqliteRegistry(path.resolve(get('path') ?? defaultRegistryFile())));
    }
    case 'redis': {
      const [{ RedisRegistry }, { redisOptionsFromMetadata }] = await Promise.all([import('./redis-registry.js'), import('../../stores/redis-connection.js')]);
      return lease(new RedisRegistry(redisOptionsFromMetadata(get), get('registryKeyPrefix')));
    }
    case 'postgresql': {
      const connectionString = get('connectionString');
      if (!connectionString) throw invalid('postgresql needs configuration.connectionString');
      const [{ PostgresRegistry }, { parsePgConnection }] = await Promise.all([import('./postgres-registry.js'), import('../../stores/pg-connection.js')]);
      return lease(new PostgresRegistry(parsePgConnection(connectionString), get('registryTable')));
    }
    default:
      throw invalid(`unknown component '${chosen.component}' (one of ${NAME_RESOLVERS.join(', ')})`);
  }
}

/** Imported on demand: the Kubernetes client is heavy and standalone svcd never needs it. */
async function apiServerPods(kubeconfig: string | undefined): Promise<PodSources> {
  const [{ kubernetesConfig }, pods] = await Promise.all([import('../kubernetes-loader.js'), import('./kubernetes-pods.js')]);
  return pods.apiServerPods(kubernetesConfig(kubeconfig));
}

function defaultSpec(actorStore: ComponentSpec | undefined): NameResolutionSpec {
  const shared = (component: string): NameResolutionSpec => ({ component, configuration: { ...actorStore?.metadata } });
  if (actorStore?.type === 'state.redis') return shared('redis');
  if (actorStore?.type === 'state.postgresql') return shared('postgresql');
  return { component: 'sqlite', configuration: {} };
}

function invalid(message: string): RuntimeError {
  return new RuntimeError('ERR_CONFIG_INVALID', `name resolution: ${message}`);
}
