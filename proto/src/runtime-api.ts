/**
 * The runtime API service, loaded under both names: `svc.proto.runtime.v1.Svc` and `dapr.proto.runtime.v1.Dapr`
 * (the same methods and messages), so clients built for either reach the one implementation.
 */
import type * as grpc from '@grpc/grpc-js';
import path from 'node:path';
import { daprAliasDefinition } from './dapr-alias.js';
import { packageDefinitionOf, type PackageDefinition } from './package-definition.js';
import { LOADER_OPTIONS } from './proto-root.js';
import { loadProtoRoot, servedServiceOnUse } from './served-service.js';

const FILES = [path.join('svc', 'common', 'v1', 'common.proto'), path.join('svc', 'runtime', 'v1', 'runtime.proto')];

/**
 * The most elements (messages, list and map entries, at any depth) a runtime API request may hold. An element costs
 * 2 bytes on the wire and a few hundred decoded (an empty `StateItem` with its defaults: 450), so a SaveState just
 * under the 16 MiB receive limit made of empty items took svcd's RSS to 4 GB and held its event loop for minutes;
 * the bulk requests clients send hold thousands. (Not the Durable Task service's: a fan-out of 100,000 activities
 * answers one orchestrator turn with several times that.)
 */
export const MAX_RUNTIME_API_REQUEST_ELEMENTS = 100_000;

export const SVC_RUNTIME_SERVICE = 'svc.proto.runtime.v1.Svc';
export const DAPR_RUNTIME_SERVICE = 'dapr.proto.runtime.v1.Dapr';

export interface RuntimeApiProto {
  /**
   * Both services' definitions (same handlers, two paths), and their package definitions for reflection: built
   * when first asked for (each parses the files again and describes every message), for what a tool asks for
   * now and then.
   */
  readonly services: readonly { readonly name: string; readonly definition: grpc.ServiceDefinition; readonly packageDefinition: () => Promise<PackageDefinition> }[];
}

let cache: RuntimeApiProto | undefined;

export function loadRuntimeApiProto(): RuntimeApiProto {
  if (cache) return cache;
  let root: ReturnType<typeof loadProtoRoot> | undefined;
  const served = servedServiceOnUse(FILES, () => (root ??= loadProtoRoot(FILES)), SVC_RUNTIME_SERVICE, LOADER_OPTIONS, MAX_RUNTIME_API_REQUEST_ELEMENTS);
  cache = {
    services: [
      { name: SVC_RUNTIME_SERVICE, definition: served, packageDefinition: () => packageDefinitionOf(FILES) },
      { name: DAPR_RUNTIME_SERVICE, definition: renamedService(served, SVC_RUNTIME_SERVICE, DAPR_RUNTIME_SERVICE), packageDefinition: () => daprAliasDefinition(FILES, { Svc: 'Dapr' }) },
    ],
  };
  return cache;
}

/** The same methods under another service name: the wire format does not depend on it, only the paths do. */
function renamedService(definition: grpc.ServiceDefinition, from: string, to: string): grpc.ServiceDefinition {
  const renamed: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [name, method] of Object.entries(definition)) renamed[name] = { ...method, path: method.path.replace(`/${from}/`, `/${to}/`) };
  return renamed;
}
