/**
 * The pluggable component contract, loaded twice: under its own package `svc.proto.components.v1` and under
 * `dapr.proto.components.v1`. The two are the same messages and services, so svcd can call a component under
 * whichever name it advertised by reflection, and components can serve either.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import path from 'node:path';
import type { ProtoGrpcType as BindingsGrpc } from './gen/bindings.js';
import type { ProtoGrpcType as PubSubGrpc } from './gen/pubsub.js';
import type { ProtoGrpcType as StateGrpc } from './gen/state.js';
import { daprAliasDefinition } from './dapr-alias.js';
import { LOADER_OPTIONS } from './proto-root.js';

export const SVC_COMPONENTS_PACKAGE = 'svc.proto.components.v1';
export const DAPR_COMPONENTS_PACKAGE = 'dapr.proto.components.v1';
export const COMPONENTS_PACKAGES = [SVC_COMPONENTS_PACKAGE, DAPR_COMPONENTS_PACKAGE] as const;
export type ComponentsPackage = (typeof COMPONENTS_PACKAGES)[number];

const FILES = ['common', 'state', 'pubsub', 'bindings'].map((f) => path.join('svc', 'components', 'v1', `${f}.proto`));

type V1<T> = T extends { svc: { proto: { components: { v1: infer P } } } } ? P : never;
/** Typed client/server constructors and service definitions of every component API. */
export type ComponentsGrpc = V1<StateGrpc> & V1<PubSubGrpc> & V1<BindingsGrpc>;

export interface ComponentsProtoPackage {
  readonly name: ComponentsPackage;
  /** For servers (`addService`) and `@grpc/reflection`: real descriptors named after this package. */
  readonly definition: protoLoader.PackageDefinition;
  readonly grpc: ComponentsGrpc;
}

function pick(def: protoLoader.PackageDefinition, pkg: ComponentsPackage): ComponentsProtoPackage {
  const loaded = grpc.loadPackageDefinition(def) as unknown as Record<string, unknown>;
  let node: unknown = loaded;
  for (const part of pkg.split('.')) node = (node as Record<string, unknown>)[part];
  return { name: pkg, definition: def, grpc: node as ComponentsGrpc };
}

let cache: Readonly<Record<ComponentsPackage, ComponentsProtoPackage>> | undefined;

/** Both packages, loaded once per process. */
export function loadComponentsProto(): Readonly<Record<ComponentsPackage, ComponentsProtoPackage>> {
  cache ??= {
    [SVC_COMPONENTS_PACKAGE]: pick(protoLoader.loadSync(FILES, LOADER_OPTIONS), SVC_COMPONENTS_PACKAGE),
    [DAPR_COMPONENTS_PACKAGE]: pick(daprAliasDefinition(FILES), DAPR_COMPONENTS_PACKAGE),
  };
  return cache;
}

/** `svc.proto.components.v1.StateStore` → `{ pkg: 'svc.proto.components.v1', service: 'StateStore' }`. */
export function splitComponentService(fullName: string): { pkg: ComponentsPackage; service: string } | undefined {
  const dot = fullName.lastIndexOf('.');
  const pkg = fullName.slice(0, dot);
  if (dot < 0 || !(COMPONENTS_PACKAGES as readonly string[]).includes(pkg)) return undefined;
  return { pkg: pkg as ComponentsPackage, service: fullName.slice(dot + 1) };
}
