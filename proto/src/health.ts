/** The gRPC health checking service (grpc.health.v1), for svcd to serve beside its APIs. */
import type * as grpc from '@grpc/grpc-js';
import path from 'node:path';
import type { HealthClient } from './gen/grpc/health/v1/Health.js';
import { packageDefinitionOf, type PackageDefinition } from './package-definition.js';
import { loadProtoRoot, servedServiceOnUse, serviceClient, type ServiceClientClass } from './served-service.js';

export type { HealthCheckResponse } from './gen/grpc/health/v1/HealthCheckResponse.js';
export type { HealthCheckRequest__Output } from './gen/grpc/health/v1/HealthCheckRequest.js';

const FILE = path.join('grpc', 'health', 'v1', 'health.proto');
const SERVICE = 'grpc.health.v1.Health';

export interface HealthProto {
  readonly definition: grpc.ServiceDefinition;
  /** For reflection. */
  readonly packageDefinition: () => Promise<PackageDefinition>;
  /** The typed client, for tests and tools. */
  readonly grpc: { readonly Health: ServiceClientClass<HealthClient> };
}

export function loadHealthProto(): HealthProto {
  let root: ReturnType<typeof loadProtoRoot> | undefined;
  const rootNow = () => (root ??= loadProtoRoot([FILE]));
  let client: ServiceClientClass<HealthClient> | undefined;
  return {
    definition: servedServiceOnUse([FILE], rootNow, SERVICE),
    packageDefinition: () => packageDefinitionOf(FILE),
    grpc: {
      get Health() {
        return (client ??= serviceClient<HealthClient>(rootNow(), SERVICE));
      },
    },
  };
}
