/**
 * The app channel over gRPC (`AppCallback`, `AppCallbackAlpha`, `AppCallbackHealthCheck`) under Dapr's package
 * name, which apps built with the Dapr SDKs serve; svcd calls them as a client. The TypeScript types are the
 * generated `svc.proto.runtime.v1` ones: the messages are the same.
 */
import path from 'node:path';
import type { AppCallbackClient } from './gen/svc/proto/runtime/v1/AppCallback.js';
import type { AppCallbackAlphaClient } from './gen/svc/proto/runtime/v1/AppCallbackAlpha.js';
import type { AppCallbackHealthCheckClient } from './gen/svc/proto/runtime/v1/AppCallbackHealthCheck.js';
import { daprAliasRoot } from './dapr-alias.js';
import { loadProtoRoot, serviceClient, type ServiceClientClass } from './served-service.js';

export type { AppCallbackClient, AppCallbackAlphaClient, AppCallbackHealthCheckClient };
export type { TopicEventRequest } from './gen/svc/proto/runtime/v1/TopicEventRequest.js';
export type { TopicEventResponse__Output } from './gen/svc/proto/runtime/v1/TopicEventResponse.js';
export type { TopicEventBulkRequest } from './gen/svc/proto/runtime/v1/TopicEventBulkRequest.js';
export type { TopicEventBulkResponse__Output } from './gen/svc/proto/runtime/v1/TopicEventBulkResponse.js';
export type { ListTopicSubscriptionsResponse__Output } from './gen/svc/proto/runtime/v1/ListTopicSubscriptionsResponse.js';
export type { ListInputBindingsResponse__Output } from './gen/svc/proto/runtime/v1/ListInputBindingsResponse.js';
export type { BindingEventResponse__Output } from './gen/svc/proto/runtime/v1/BindingEventResponse.js';
export type { JobEventRequest } from './gen/svc/proto/runtime/v1/JobEventRequest.js';

const FILES = [path.join('svc', 'common', 'v1', 'common.proto'), path.join('svc', 'runtime', 'v1', 'appcallback.proto')];

export interface AppCallbackProto {
  readonly AppCallback: ServiceClientClass<AppCallbackClient>;
  readonly AppCallbackAlpha: ServiceClientClass<AppCallbackAlphaClient>;
  readonly AppCallbackHealthCheck: ServiceClientClass<AppCallbackHealthCheckClient>;
}

const PACKAGE = 'dapr.proto.runtime.v1';

let cache: AppCallbackProto | undefined;

/** `dapr.proto.runtime.v1.AppCallback` and friends, loaded once. */
export function loadAppCallbackProto(): AppCallbackProto {
  if (cache) return cache;
  const root = daprAliasRoot(loadProtoRoot(FILES));
  cache = {
    AppCallback: serviceClient<AppCallbackClient>(root, `${PACKAGE}.AppCallback`),
    AppCallbackAlpha: serviceClient<AppCallbackAlphaClient>(root, `${PACKAGE}.AppCallbackAlpha`),
    AppCallbackHealthCheck: serviceClient<AppCallbackHealthCheckClient>(root, `${PACKAGE}.AppCallbackHealthCheck`),
  };
  return cache;
}
