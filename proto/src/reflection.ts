/** The ListServices subset of gRPC server reflection, both published versions, for discovery clients. */
import path from 'node:path';
import type { ServerReflectionClient } from './gen/grpc/reflection/v1/ServerReflection.js';
import { loadProtoRoot, serviceClient, type ServiceClientClass } from './served-service.js';

export const REFLECTION_VERSIONS = ['v1', 'v1alpha'] as const;
export type ReflectionVersion = (typeof REFLECTION_VERSIONS)[number];

export type { ServerReflectionClient };
export type { ServerReflectionRequest } from './gen/grpc/reflection/v1/ServerReflectionRequest.js';
export type { ServerReflectionResponse__Output } from './gen/grpc/reflection/v1/ServerReflectionResponse.js';

type ClientConstructor = ServiceClientClass<ServerReflectionClient>;

const cache = new Map<ReflectionVersion, ClientConstructor>();

/** The reflection client constructor of one version; both versions share message shapes. */
export function reflectionClientConstructor(version: ReflectionVersion): ClientConstructor {
  let ctor = cache.get(version);
  if (!ctor) {
    const file = path.join('grpc', 'reflection', version, `reflection_${version}.proto`);
    ctor = serviceClient<ServerReflectionClient>(loadProtoRoot([file]), `grpc.reflection.${version}.ServerReflection`);
    cache.set(version, ctor);
  }
  return ctor;
}
