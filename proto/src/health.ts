/** The gRPC health checking service (grpc.health.v1), for svcd to serve beside its APIs. */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import path from 'node:path';
import type { ProtoGrpcType } from './gen/health.js';
import { LOADER_OPTIONS } from './proto-root.js';

export type { HealthCheckResponse } from './gen/grpc/health/v1/HealthCheckResponse.js';
export type { HealthCheckRequest__Output } from './gen/grpc/health/v1/HealthCheckRequest.js';

export function loadHealthProto(): { definition: grpc.ServiceDefinition; packageDefinition: protoLoader.PackageDefinition; grpc: ProtoGrpcType['grpc']['health']['v1'] } {
  const packageDefinition = protoLoader.loadSync(path.join('grpc', 'health', 'v1', 'health.proto'), LOADER_OPTIONS);
  const loaded = (grpc.loadPackageDefinition(packageDefinition) as unknown as ProtoGrpcType).grpc.health.v1;
  return { definition: loaded.Health.service, packageDefinition, grpc: loaded };
}
