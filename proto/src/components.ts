/**
 * The pluggable component contract, loaded twice: under its own package `svc.proto.components.v1` and under
 * `dapr.proto.components.v1`. The two are the same messages and services, so svcd can call a component under
 * whichever name it advertised by reflection, and components can serve either.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import path from 'node:path';
import type { ProtoGrpcType as BindingsGrpc } from './gen/bindings.js';
import type { ProtoGrpcType as PubSubGrpc } from './gen/pubsub.js';
import type { ProtoGrpcType as StateGrpc } from './gen/state.js';
import { LOADER_OPTIONS, PROTO_ROOT } from './proto-root.js';

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

function daprAliasDefinition(): protoLoader.PackageDefinition {
  // Same files, the package moved from svc.proto to dapr.proto. Every reference inside the files is relative to
  // the package (or to google.protobuf), so moving the namespace keeps them resolvable.
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(PROTO_ROOT, target));
  root.loadSync(FILES, { keepCase: LOADER_OPTIONS.keepCase });
  const json = root.toJSON() as { nested: Record<string, protobuf.AnyNestedObject> };
  const svc = json.nested.svc as { nested: { proto: { nested: Record<string, protobuf.AnyNestedObject> } } };
  const { svc: _moved, ...others } = json.nested;
  const aliased = { nested: { ...others, dapr: { nested: { proto: { nested: svc.nested.proto.nested } } } } };
  return protoLoader.fromJSON(aliased, LOADER_OPTIONS);
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
    [DAPR_COMPONENTS_PACKAGE]: pick(daprAliasDefinition(), DAPR_COMPONENTS_PACKAGE),
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
