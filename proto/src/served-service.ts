/**
 * What a gRPC server needs to serve a service, straight from the parsed `.proto` files: each method's path and
 * proto-loader's conversions between messages and plain objects (LOADER_OPTIONS). proto-loader's package
 * definition also builds a descriptor of every message for reflection, which was most of svcd's proto work at
 * start-up; svcd builds that one only when reflection or a typed client first asks for it.
 */
import * as grpc from '@grpc/grpc-js';
import path from 'node:path';
import protobuf from 'protobufjs';
import { LOADER_OPTIONS, PROTO_ROOT } from './proto-root.js';

/** How messages convert to plain objects: proto-loader's option names (`toObject`'s). */
export type Conversions = Pick<protobuf.IConversionOptions, 'longs' | 'enums' | 'bytes' | 'defaults' | 'oneofs'>;

/** The files parsed as proto-loader parses them: the same case of names, imports found under PROTO_ROOT. */
export function loadProtoRoot(files: readonly string[]): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(PROTO_ROOT, target));
  root.loadSync([...files], { keepCase: LOADER_OPTIONS.keepCase });
  root.resolveAll();
  return root;
}

function serializer(type: protobuf.Type): (value: object) => Buffer {
  return (value) => {
    if (Array.isArray(value)) throw new Error(`Failed to serialize message: expected object with ${type.name} structure, got array instead`);
    return type.encode(type.fromObject(value)).finish() as Buffer;
  };
}

function deserializer(type: protobuf.Type, conversions: Conversions): (bytes: Buffer) => object {
  return (bytes) => type.toObject(type.decode(bytes), conversions);
}

/**
 * The definition grpc-js serves `serviceName` (fully qualified) of `root` with, as proto-loader would make it;
 * `Definition` is its generated type (gen/), when the caller wants its methods by name.
 */
export function servedService<Definition extends grpc.ServiceDefinition = grpc.ServiceDefinition>(root: protobuf.Root, serviceName: string, conversions: Conversions = LOADER_OPTIONS): Definition {
  const service = root.lookupService(serviceName);
  const fullName = service.fullName.replace(/^\./, '');
  const definition: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const method of service.methodsArray) {
    const request = method.resolvedRequestType!;
    const response = method.resolvedResponseType!;
    definition[method.name] = {
      path: `/${fullName}/${method.name}`,
      // proto-loader's camelCase of a method name; for ours (no acronyms) that is the first letter lowered.
      originalName: method.name.charAt(0).toLowerCase() + method.name.slice(1),
      requestStream: method.requestStream === true,
      responseStream: method.responseStream === true,
      requestSerialize: serializer(request),
      requestDeserialize: deserializer(request, conversions),
      responseSerialize: serializer(response),
      responseDeserialize: deserializer(response, conversions),
    };
  }
  return definition as unknown as Definition;
}

/** A generated client class (gen/): a `grpc.Client` with the service's methods, and the service definition. */
export type ServiceClientClass<Client> = (new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions) => Client) & { service: grpc.ServiceDefinition };

/** The client class of `serviceName`, as `grpc.loadPackageDefinition` makes it. */
export function serviceClient<Client>(root: protobuf.Root, serviceName: string): ServiceClientClass<Client> {
  return grpc.makeGenericClientConstructor(servedService(root, serviceName), serviceName.split('.').pop()!) as unknown as ServiceClientClass<Client>;
}
