/**
 * The Dapr runtime API and app callback services as the Dapr JS SDK ships them (the `.proto` files inside
 * `@dapr/dapr`), loaded with proto-loader: a client built from them talks to svcd exactly as a Dapr client does,
 * with Dapr's field numbers and names, not svc's own copy of them.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { createRequire } from 'node:module';
import path from 'node:path';

const PROTO_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('@dapr/dapr/package.json')), 'proto');
const PACKAGE = 'dapr.proto.runtime.v1';

/** Plain objects as proto-loader makes them: camelCase fields, 64-bit numbers as strings, only the fields set. */
const LOADER_OPTIONS: protoLoader.Options = { includeDirs: [PROTO_DIR], longs: String, enums: String, defaults: false, oneofs: false };

export type Unary = (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res?: unknown) => void) => void;

interface DaprServices {
  Dapr: grpc.ServiceClientConstructor;
  AppCallback: grpc.ServiceClientConstructor;
  AppCallbackAlpha: grpc.ServiceClientConstructor;
}

let loaded: DaprServices | undefined;

function services(): DaprServices {
  if (loaded) return loaded;
  const files = ['dapr.proto', 'appcallback.proto'].map((f) => `dapr/proto/runtime/v1/${f}`);
  const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(files, LOADER_OPTIONS)) as unknown as { dapr: { proto: { runtime: { v1: DaprServices } } } };
  loaded = pkg.dapr.proto.runtime.v1;
  return loaded;
}

/**
 * `service` with the method `name`: `from`'s messages under this service's path. svcd serves the jobs methods
 * under stable names too (ScheduleJob, …, and calls an app's OnJobEvent first), with the Alpha1 ones' messages;
 * the SDK's files declare only the Alpha1 names.
 */
function withMethod(service: grpc.ServiceDefinition, serviceName: string, name: string, from: grpc.MethodDefinition<unknown, unknown>): grpc.ServiceDefinition {
  return { ...service, [name]: { ...from, path: `/${PACKAGE}.${serviceName}/${name}`, originalName: name } };
}

/** The jobs methods whose stable names (ScheduleJob, …) carry the messages of their Alpha1 names. */
const STABLE_JOB_METHODS = ['ScheduleJob', 'GetJob', 'DeleteJob', 'DeleteJobsByPrefix', 'ListJobs'] as const;

/** A `dapr.proto.runtime.v1.Dapr` client on `address`, with the jobs methods under their stable names too. */
export function daprSdkClient(address: string): grpc.Client & Record<string, Unary> {
  const dapr = services().Dapr.service;
  const definition = STABLE_JOB_METHODS.reduce((d, name) => withMethod(d, 'Dapr', name, dapr[`${name}Alpha1`]!), dapr);
  const Client = grpc.makeGenericClientConstructor(definition, 'Dapr');
  return new Client(address, grpc.credentials.createInsecure()) as grpc.Client & Record<string, Unary>;
}

/** `dapr.proto.runtime.v1.AppCallbackAlpha` as an app serves it (OnJobEventAlpha1, …). */
export function appCallbackAlphaService(): grpc.ServiceDefinition {
  return services().AppCallbackAlpha.service;
}

/** `dapr.proto.runtime.v1.AppCallback` with OnJobEvent, the stable name of AppCallbackAlpha's OnJobEventAlpha1. */
export function appCallbackServiceWithJobs(): grpc.ServiceDefinition {
  const { AppCallback, AppCallbackAlpha } = services();
  return withMethod(AppCallback.service, 'AppCallback', 'OnJobEvent', AppCallbackAlpha.service.OnJobEventAlpha1!);
}

/** Calls `method` with `req`; resolves with the answer, rejects with the gRPC error. */
export function call<T>(client: Record<string, Unary>, method: string, req: unknown): Promise<T> {
  return new Promise((resolve, reject) => client[method]!.call(client, req, new grpc.Metadata(), (err, res) => (err ? reject(err) : resolve(res as T))));
}
