/**
 * The app channel over gRPC (`AppCallback`, `AppCallbackAlpha`, `AppCallbackHealthCheck`) under Dapr's package
 * name, which apps built with the Dapr SDKs serve; svcd calls them as a client. The TypeScript types are the
 * generated `svc.proto.runtime.v1` ones: the messages are the same.
 */
import * as grpc from '@grpc/grpc-js';
import type * as protoLoader from '@grpc/proto-loader';
import path from 'node:path';
import type { AppCallbackClient } from './gen/svc/proto/runtime/v1/AppCallback.js';
import type { AppCallbackAlphaClient } from './gen/svc/proto/runtime/v1/AppCallbackAlpha.js';
import type { AppCallbackHealthCheckClient } from './gen/svc/proto/runtime/v1/AppCallbackHealthCheck.js';
import { daprAliasDefinition } from './dapr-alias.js';

export type { AppCallbackClient, AppCallbackAlphaClient, AppCallbackHealthCheckClient };
export type { TopicEventRequest } from './gen/svc/proto/runtime/v1/TopicEventRequest.js';
export type { TopicEventResponse__Output } from './gen/svc/proto/runtime/v1/TopicEventResponse.js';
export type { TopicEventBulkRequest } from './gen/svc/proto/runtime/v1/TopicEventBulkRequest.js';
export type { TopicEventBulkResponse__Output } from './gen/svc/proto/runtime/v1/TopicEventBulkResponse.js';
export type { ListTopicSubscriptionsResponse__Output } from './gen/svc/proto/runtime/v1/ListTopicSubscriptionsResponse.js';
export type { ListInputBindingsResponse__Output } from './gen/svc/proto/runtime/v1/ListInputBindingsResponse.js';
export type { BindingEventResponse__Output } from './gen/svc/proto/runtime/v1/BindingEventResponse.js';

const FILES = [path.join('svc', 'common', 'v1', 'common.proto'), path.join('svc', 'runtime', 'v1', 'appcallback.proto')];

type Ctor<C> = new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => C;

export interface AppCallbackProto {
  readonly AppCallback: Ctor<AppCallbackClient> & { service: grpc.ServiceDefinition };
  readonly AppCallbackAlpha: Ctor<AppCallbackAlphaClient> & { service: grpc.ServiceDefinition };
  readonly AppCallbackHealthCheck: Ctor<AppCallbackHealthCheckClient> & { service: grpc.ServiceDefinition };
  readonly packageDefinition: protoLoader.PackageDefinition;
}

let cache: AppCallbackProto | undefined;

/** `dapr.proto.runtime.v1.AppCallback` and friends, loaded once. */
export function loadAppCallbackProto(): AppCallbackProto {
  if (cache) return cache;
  const packageDefinition = daprAliasDefinition(FILES);
  const v1 = (grpc.loadPackageDefinition(packageDefinition) as unknown as { dapr: { proto: { runtime: { v1: Omit<AppCallbackProto, 'packageDefinition'> } } } }).dapr.proto.runtime.v1;
  cache = { AppCallback: v1.AppCallback, AppCallbackAlpha: v1.AppCallbackAlpha, AppCallbackHealthCheck: v1.AppCallbackHealthCheck, packageDefinition };
  return cache;
}
