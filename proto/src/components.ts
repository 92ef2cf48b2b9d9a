/**
 * The pluggable component contract, loaded twice: under its own package `svc.proto.components.v1` and under
 * `dapr.proto.components.v1`. The two are the same messages and services, so svcd can call a component under
 * whichever name it advertised by reflection, and components can serve either.
 */
import path from 'node:path';
import type protobuf from 'protobufjs';
import type { InputBindingClient } from './gen/svc/proto/components/v1/InputBinding.js';
import type { OutputBindingClient } from './gen/svc/proto/components/v1/OutputBinding.js';
import type { PubSubClient } from './gen/svc/proto/components/v1/PubSub.js';
import type { SecretStoreClient } from './gen/svc/proto/components/v1/SecretStore.js';
import type { QueriableStateStoreClient } from './gen/svc/proto/components/v1/QueriableStateStore.js';
import type { StateStoreClient } from './gen/svc/proto/components/v1/StateStore.js';
import type { TransactionalStateStoreClient } from './gen/svc/proto/components/v1/TransactionalStateStore.js';
import type { TransactionalStoreMultiMaxSizeClient } from './gen/svc/proto/components/v1/TransactionalStoreMultiMaxSize.js';
import { daprAliasDefinition, daprAliasRoot } from './dapr-alias.js';
import { packageDefinitionOf, type PackageDefinition } from './package-definition.js';
import { loadProtoRoot, serviceClient, type ServiceClientClass } from './served-service.js';

export const SVC_COMPONENTS_PACKAGE = 'svc.proto.components.v1';
export const DAPR_COMPONENTS_PACKAGE = 'dapr.proto.components.v1';
export const COMPONENTS_PACKAGES = [SVC_COMPONENTS_PACKAGE, DAPR_COMPONENTS_PACKAGE] as const;
export type ComponentsPackage = (typeof COMPONENTS_PACKAGES)[number];

const FILES = ['common', 'state', 'pubsub', 'bindings', 'secretstore'].map((f) => path.join('svc', 'components', 'v1', `${f}.proto`));

/** Typed client classes (with their service definitions, for servers) of every component API. */
export interface ComponentsGrpc {
  readonly StateStore: ServiceClientClass<StateStoreClient>;
  readonly TransactionalStateStore: ServiceClientClass<TransactionalStateStoreClient>;
  readonly TransactionalStoreMultiMaxSize: ServiceClientClass<TransactionalStoreMultiMaxSizeClient>;
  readonly QueriableStateStore: ServiceClientClass<QueriableStateStoreClient>;
  readonly PubSub: ServiceClientClass<PubSubClient>;
  readonly InputBinding: ServiceClientClass<InputBindingClient>;
  readonly OutputBinding: ServiceClientClass<OutputBindingClient>;
  readonly SecretStore: ServiceClientClass<SecretStoreClient>;
}

export interface ComponentsProtoPackage {
  readonly name: ComponentsPackage;
  /** For `@grpc/reflection` (a component serving reflection): real descriptors named after this package. */
  readonly definition: () => Promise<PackageDefinition>;
  readonly grpc: ComponentsGrpc;
}

function pick(root: protobuf.Root, pkg: ComponentsPackage, definition: () => Promise<PackageDefinition>): ComponentsProtoPackage {
  const client = <C>(service: keyof ComponentsGrpc) => serviceClient<C>(root, `${pkg}.${service}`);
  return {
    name: pkg,
    definition,
    grpc: {
      StateStore: client('StateStore'),
      TransactionalStateStore: client('TransactionalStateStore'),
      TransactionalStoreMultiMaxSize: client('TransactionalStoreMultiMaxSize'),
      QueriableStateStore: client('QueriableStateStore'),
      PubSub: client('PubSub'),
      InputBinding: client('InputBinding'),
      OutputBinding: client('OutputBinding'),
      SecretStore: client('SecretStore'),
    },
  };
}

let cache: Readonly<Record<ComponentsPackage, ComponentsProtoPackage>> | undefined;

/** Both packages, loaded once per process. */
export function loadComponentsProto(): Readonly<Record<ComponentsPackage, ComponentsProtoPackage>> {
  if (!cache) {
    const parsed = loadProtoRoot(FILES);
    cache = {
      [SVC_COMPONENTS_PACKAGE]: pick(parsed, SVC_COMPONENTS_PACKAGE, () => packageDefinitionOf(FILES)),
      [DAPR_COMPONENTS_PACKAGE]: pick(daprAliasRoot(parsed), DAPR_COMPONENTS_PACKAGE, () => daprAliasDefinition(FILES)),
    };
  }
  return cache;
}

/** `svc.proto.components.v1.StateStore` → `{ pkg: 'svc.proto.components.v1', service: 'StateStore' }`. */
export function splitComponentService(fullName: string): { pkg: ComponentsPackage; service: string } | undefined {
  const dot = fullName.lastIndexOf('.');
  const pkg = fullName.slice(0, dot);
  if (dot < 0 || !(COMPONENTS_PACKAGES as readonly string[]).includes(pkg)) return undefined;
  return { pkg: pkg as ComponentsPackage, service: fullName.slice(dot + 1) };
}
