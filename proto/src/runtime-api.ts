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

const FILES = [path.join('svc', 'common', 'v1', 'common.proto'), path.join('svc', 'runtime', 'v1', 'runtime.proto')];

export const SVC_RUNTIME_SERVICE = 'svc.proto.runtime.v1.Svc';
export const DAPR_RUNTIME_SERVICE = 'dapr.proto.runtime.v1.Dapr';

type RuntimeGrpc = ProtoGrpcType['svc']['proto']['runtime']['v1'];

export interface RuntimeApiProto {
  /** Both services' definitions (same handlers, two paths), and the package definitions for reflection. */
  readonly services: readonly { readonly name: string; readonly definition: grpc.ServiceDefinition; readonly packageDefinition: protoLoader.PackageDefinition }[];
  /** Typed client constructors (svc names), for tests and tools. */
  readonly grpc: RuntimeGrpc;
}

let cache: RuntimeApiProto | undefined;

export function loadRuntimeApiProto(): RuntimeApiProto {
  if (cache) return cache;
  const svcDef = protoLoader.loadSync(FILES, LOADER_OPTIONS);
  const daprDef = daprAliasDefinition(FILES, { Svc: 'Dapr' });
  const svc = (grpc.loadPackageDefinition(svcDef) as unknown as ProtoGrpcType).svc.proto.runtime.v1;
  const dapr = (grpc.loadPackageDefinition(daprDef) as unknown as { dapr: { proto: { runtime: { v1: { Dapr: grpc.ServiceClientConstructor } } } } }).dapr.proto.runtime.v1;
  cache = {
    services: [
      { name: SVC_RUNTIME_SERVICE, definition: svc.Svc.service, packageDefinition: svcDef },
      { name: DAPR_RUNTIME_SERVICE, definition: dapr.Dapr.service, packageDefinition: daprDef },
    ],
    grpc: svc,
  };
  return cache;
}
