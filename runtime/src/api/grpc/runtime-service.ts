/**
 * The gRPC runtime API: `svc.proto.runtime.v1.Svc` and `dapr.proto.runtime.v1.Dapr` (one implementation under
 * both names), and `grpc.health.v1.Health`, beside the Durable Task service on the gRPC port. Every method calls
 * the transport-free API the HTTP routes call too.
 */
import type * as grpc from '@grpc/grpc-js';
import { loadHealthProto, loadRuntimeApiProto, type HealthCheckRequest__Output, type HealthCheckResponse, type PackageDefinition } from '@svc/proto';
import type { PublicActorApi } from '../../actors/public-actors.js';
import type { OutputBindingApi } from '../../bindings/output-api.js';
import type { ConfigurationApi } from '../../configuration/configuration-api.js';
import type { JobsApi } from '../../jobs/jobs-api.js';
import type { LockApi } from '../../lock/lock-api.js';
import type { RuntimeMetadata } from '../../metadata/runtime-metadata.js';
import type { PublishApi } from '../../pubsub/publish-api.js';
import type { SecretsApi } from '../../secrets/secrets-api.js';
import type { StateApi } from '../../state/state-api.js';
import type { Readiness } from '../../util/readiness.js';
import type { WorkflowManagementApi } from '../../workflow/management-api.js';
import { decodingFailuresAsRequests } from './malformed-request.js';
import { actorHandlers } from './runtime/actors.js';
import type { Handler, HandlerGroup } from './runtime/handler.js';
import { unary } from './unary.js';
import { configurationHandlers, subscribeConfigurationHandler } from './runtime/configuration.js';
import { jobHandlers } from './runtime/jobs.js';
import { lockHandlers } from './runtime/lock.js';
import { messagingHandlers } from './runtime/messaging.js';
import { metadataHandlers } from './runtime/metadata.js';
import { secretHandlers } from './runtime/secrets.js';
import { stateHandlers } from './runtime/state.js';
import { subscribeStreamHandler, type StreamingSubscriptions } from './runtime/subscribe-stream.js';
import { unimplementedMethods } from './runtime/unimplemented.js';
import { workflowHandlers } from './runtime/workflows.js';
import { invokeHandlers } from './runtime/invoke.js';
import type { InvocationApi } from '../../invocation/invocation-api.js';

export interface RuntimeServiceDeps {
  readonly state: StateApi;
  readonly publish: PublishApi;
  readonly bindings: OutputBindingApi;
  readonly secrets: SecretsApi;
  readonly lock: LockApi;
  readonly jobs: JobsApi;
  readonly configuration: ConfigurationApi;
  readonly metadata: RuntimeMetadata;
  /** Throws ERR_ACTOR_RUNTIME_NOT_FOUND when no actor state store is configured. */
  readonly actors: () => PublicActorApi;
  readonly workflows: WorkflowManagementApi;
  readonly readiness: Readiness;
  /** Where streaming subscriptions (SubscribeTopicEventsAlpha1) run. */
  readonly subscriptions: StreamingSubscriptions;
  readonly invocation: InvocationApi;
  /** The largest answer InvokeService reads from the target app (`--max-request-size`). */
  readonly maxRequestSizeBytes: number;
  /** Starts svcd's graceful stop (the `Shutdown` method), after the answer went out. */
  readonly shutdown: () => void;
  readonly apiToken: string | undefined;
}

export interface GrpcService {
  readonly definition: grpc.ServiceDefinition;
  readonly implementation: grpc.UntypedServiceImplementation;
}

function runtimeImplementation(deps: RuntimeServiceDeps): grpc.UntypedServiceImplementation {
  const groups: HandlerGroup[] = [
    stateHandlers(deps.state),
    messagingHandlers(deps.publish, deps.bindings),
    secretHandlers(deps.secrets),
    metadataHandlers(deps.metadata),
    lockHandlers(deps.lock),
    jobHandlers(deps.jobs),
    configurationHandlers(deps.configuration),
    actorHandlers(deps.actors),
    workflowHandlers(deps.workflows),
    invokeHandlers(deps.invocation, deps.maxRequestSizeBytes),
    {
      Shutdown: () => {
        setImmediate(deps.shutdown);
        return Promise.resolve({});
      },
    },
  ];
  const impl: grpc.UntypedServiceImplementation = unimplementedMethods();
  for (const group of groups) {
    for (const [name, handler] of Object.entries(group)) {
      const run = handler as Handler<unknown, unknown>;
      impl[name] = unary<unknown, unknown>(name, (req, cancelled, call) => run(req, call, cancelled), { apiToken: deps.apiToken }) as grpc.UntypedHandleCall;
    }
  }
  impl.SubscribeTopicEventsAlpha1 = subscribeStreamHandler(deps.subscriptions, deps.apiToken) as grpc.UntypedHandleCall;
  impl.SubscribeConfiguration = impl.SubscribeConfigurationAlpha1 = subscribeConfigurationHandler(deps.configuration, deps.apiToken) as grpc.UntypedHandleCall;
  return impl;
}

/** Health answers for the whole server ("") and for each service on it; probes need no token. */
function healthImplementation(readiness: Readiness, services: ReadonlySet<string>): grpc.UntypedServiceImplementation {
  const status = (service: string): HealthCheckResponse['status'] => {
    if (service !== '' && !services.has(service)) return 'SERVICE_UNKNOWN';
    return readiness.ready ? 'SERVING' : 'NOT_SERVING';
  };
  return {
    Check: (call: grpc.ServerUnaryCall<HealthCheckRequest__Output, HealthCheckResponse>, callback: grpc.sendUnaryData<HealthCheckResponse>) => {
      callback(null, { status: status(call.request.service) });
    },
    Watch: (call: grpc.ServerWritableStream<HealthCheckRequest__Output, HealthCheckResponse>) => {
      let open = true;
      call.on('cancelled', () => (open = false));
      const send = async (): Promise<void> => {
        while (open) {
          call.write({ status: status(call.request.service) });
          await readiness.changed();
        }
      };
      void send();
    },
  };
}

/** The services to add to the gRPC server, and the package definitions reflection describes. */
export function runtimeApiServices(deps: RuntimeServiceDeps): { services: GrpcService[]; reflection: (() => Promise<PackageDefinition>)[]; names: string[] } {
  const runtime = loadRuntimeApiProto();
  const health = loadHealthProto();
  const implementation = runtimeImplementation(deps);
  const names = new Set(runtime.services.map((s) => s.name));
  return {
    services: [
      ...runtime.services.map((s) => ({ definition: decodingFailuresAsRequests(s.definition), implementation })),
      { definition: health.definition, implementation: healthImplementation(deps.readiness, names) },
    ],
    reflection: [...runtime.services.map((s) => s.packageDefinition), health.packageDefinition],
    names: [...names, 'grpc.health.v1.Health'],
  };
}

