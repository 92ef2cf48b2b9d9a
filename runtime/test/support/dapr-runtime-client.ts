import * as grpc from '@grpc/grpc-js';
import { loadRuntimeApiProto } from '@svc/proto';

/**
 * A grpc-js client of the Dapr runtime API (`dapr.proto.runtime.v1.Dapr`, which svcd serves on its gRPC port) at
 * `address` (`host:port`), built from svcd's own proto: its methods by name, typed as the test calls them.
 */
export function daprRuntimeClient<Methods extends object>(address: string): grpc.Client & Methods {
  const dapr = loadRuntimeApiProto().services.find((s) => s.name === 'dapr.proto.runtime.v1.Dapr')!;
  const Client = grpc.makeGenericClientConstructor(dapr.definition, 'Dapr');
  return new Client(address, grpc.credentials.createInsecure()) as grpc.Client & Methods;
}
