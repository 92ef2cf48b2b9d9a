/**
 * The runtime API service, loaded under both names: `svc.proto.runtime.v1.Svc` and `dapr.proto.runtime.v1.Dapr`
 * (the same methods and messages), so clients built for either reach the one implementation.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import path from 'node:path';
import type { ProtoGrpcType } from './gen/runtime.js';
import { daprAliasDefinition } from './dapr-alias.js';
import { LOADER_OPTIONS } from './proto-root.js';
import { loadProtoRoot, servedService } from './served-service.js';

const FILES = [path.join('svc', 'common', 'v1', 'common.proto'), path.join('svc', 'runtime', 'v1', 'runtime.proto')];

export const SVC_RUNTIME_SERVICE = 'svc.proto.runtime.v1.Svc';
export const DAPR_RUNTIME_SERVICE = 'dapr.proto.runtime.v1.Dapr';

type RuntimeGrpc = ProtoGrpcType['svc']['proto']['runtime']['v1'];

export interface RuntimeApiProto {
  /**
   * Both services' definitions (same handlers, two paths), and their package definitions for reflection: built
   * when first asked for (each parses the files again and describes every message), for what a tool asks for
   * now and then.
   */
  readonly services: readonly { readonly name: string; readonly definition: grpc.ServiceDefinition; readonly packageDefinition: () => protoLoader.PackageDefinition }[];
  /** Typed client constructors (svc names), for tests and tools (from the package definition). */
  readonly grpc: RuntimeGrpc;
}

let cache: RuntimeApiProto | undefined;

export function loadRuntimeApiProto(): RuntimeApiProto {
  if (cache) return cache;
  const served = servedService(loadProtoRoot(FILES), SVC_RUNTIME_SERVICE);
  let svcDef: protoLoader.PackageDefinition | undefined;
  let daprDef: protoLoader.PackageDefinition | undefined;
  let clients: RuntimeGrpc | undefined;
  const svcDefinition = () => (svcDef ??= protoLoader.loadSync(FILES, LOADER_OPTIONS));
  cache = {
    services: [
      { name: SVC_RUNTIME_SERVICE, definition: served, packageDefinition: svcDefinition },
      { name: DAPR_RUNTIME_SERVICE, definition: renamedService(served, SVC_RUNTIME_SERVICE, DAPR_RUNTIME_SERVICE), packageDefinition: () => (daprDef ??= daprAliasDefinition(FILES, { Svc: 'Dapr' })) },
    ],
    get grpc() {
      return (clients ??= (grpc.loadPackageDefinition(svcDefinition()) as unknown as ProtoGrpcType).svc.proto.runtime.v1);
    },
  };
  return cache;
}

/** The same methods under another service name: the wire format does not depend on it, only the paths do. */
function renamedService(definition: grpc.ServiceDefinition, from: string, to: string): grpc.ServiceDefinition {
  const renamed: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [name, method] of Object.entries(definition)) renamed[name] = { ...method, path: method.path.replace(`/${from}/`, `/${to}/`) };
  return renamed;
}
