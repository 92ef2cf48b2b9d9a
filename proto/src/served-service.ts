/**
 * What a gRPC server needs to serve a service, straight from the parsed `.proto` files: each method's path and
 * proto-loader's conversions between messages and plain objects (LOADER_OPTIONS). proto-loader's package
 * definition also builds a descriptor of every message for reflection, which was most of svcd's proto work at
 * start-up; svcd builds that one only when reflection or a typed client first asks for it.
 */
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { LOADER_OPTIONS } from './proto-root.js';

/** How messages convert to plain objects: proto-loader's option names (`toObject`'s). */
export type Conversions = Pick<protobuf.IConversionOptions, 'longs' | 'enums' | 'bytes' | 'defaults' | 'oneofs'>;

export { loadProtoRoot } from './parsed-root.js';
import { parsedServiceMethods } from './parsed-root.js';

function serializer(type: protobuf.Type): (value: object) => Buffer {
  return (value) => {
    if (Array.isArray(value)) throw new Error(`Failed to serialize message: expected object with ${type.name} structure, got array instead`);
    return type.encode(type.fromObject(value)).finish() as Buffer;
  };
}

function deserializer(type: protobuf.Type, conversions: Conversions): (bytes: Buffer) => object {
  return (bytes) => type.toObject(type.decode(bytes), conversions);
}

/** What a request deserializer given a `maxRequestElements` throws for a message over it, before decoding it. */
export class TooManyElementsError extends Error {
  override readonly name = 'TooManyElementsError';
}

/** Elements left to count; `spend` throws TooManyElementsError when there are none. */
class Budget {
  #left: number;

  constructor(private readonly limit: number) {
    this.#left = limit;
  }

  spend(elements: number): void {
    this.#left -= elements;
    if (this.#left < 0) throw new TooManyElementsError(`the message holds more than ${this.limit} elements (messages, list and map entries)`);
  }
}

/**
 * Counts the elements of the `type` message from `reader`'s position to `end` against `budget`, reading only tags
 * and lengths. The elements are what decoding makes an object or a list slot of: messages, list entries, map
 * entries (a scalar field given again replaces its value, an unknown field is skipped; a map's message values are
 * not looked into: the runtime API's maps hold strings). Malformed bytes throw the reader's errors, as decoding
 * them would; a length past the end too, which protobufjs's string reader would cut short without a word (a
 * truncated StartWorkflow started a workflow named by what arrived).
 */
function countElements(type: protobuf.Type, reader: protobuf.Reader, end: number, budget: Budget): void {
  while (reader.pos < end) {
    const tag = reader.uint32();
    const field = type.fieldsById[tag >>> 3];
    const inner = field?.resolvedType;
    const message = inner instanceof protobuf.Type && !field?.map ? inner : undefined;
    if (field?.repeated || field?.map || message) budget.spend(1);
    const wireType = tag & 7;
    if (wireType !== 2) {
      reader.skipType(wireType);
      continue;
    }
    const length = reader.uint32();
    if (message) {
      countElements(message, reader, reader.pos + length, budget);
      continue;
    }
    // A packed list of numbers: up to a number a byte.
    if (field?.repeated && (field.type in protobuf.types.packed || inner instanceof protobuf.Enum)) budget.spend(length);
    reader.skip(length);
  }
}

/** `deserializer`, refusing a message over `maxElements` before decoding it. */
function boundedDeserializer(type: protobuf.Type, conversions: Conversions, maxElements: number): (bytes: Buffer) => object {
  const decode = deserializer(type, conversions);
  return (bytes) => {
    countElements(type, protobuf.Reader.create(bytes), bytes.length, new Budget(maxElements));
    return decode(bytes);
  };
}

/**
 * The definition grpc-js serves `serviceName` (fully qualified) of `root` with, as proto-loader would make it;
 * `Definition` is its generated type (gen/), when the caller wants its methods by name. With `maxRequestElements`,
 * a request over that many elements throws TooManyElementsError before it is decoded (answers are not counted:
 * clients made from the definition decode them as before).
 */
export function servedService<Definition extends grpc.ServiceDefinition = grpc.ServiceDefinition>(root: protobuf.Root, serviceName: string, conversions: Conversions = LOADER_OPTIONS, maxRequestElements?: number): Definition {
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
      requestDeserialize: maxRequestElements === undefined ? deserializer(request, conversions) : boundedDeserializer(request, conversions, maxRequestElements),
      responseSerialize: serializer(response),
      responseDeserialize: deserializer(response, conversions),
    };
  }
  return definition as unknown as Definition;
}

/**
 * `servedService` of `serviceName` in `files`, for a server to register at start without building the root: each
 * method's path and stream kinds come from the build's parse (parsedServiceMethods), and its conversions are made
 * from `root()` on the first call of any method (or by buildDeferredServices, which svcd runs once it is ready).
 * Building the roots of the runtime API and the Durable Task service was about a tenth of svcd's start-up. Without a
 * current build parse, the root is built now.
 */
export function servedServiceOnUse<Definition extends grpc.ServiceDefinition = grpc.ServiceDefinition>(
  files: readonly string[],
  root: () => protobuf.Root,
  serviceName: string,
  conversions: Conversions = LOADER_OPTIONS,
  maxRequestElements?: number,
): Definition {
  const methods = parsedServiceMethods(files, serviceName);
  if (methods === undefined) return servedService<Definition>(root(), serviceName, conversions, maxRequestElements);
  let served: Record<string, grpc.MethodDefinition<object, object>> | undefined;
  const build = () => (served ??= servedService(root(), serviceName, conversions, maxRequestElements));
  deferred.push(build);
  const definition: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const method of methods) {
    const real = () => build()[method.name]!;
    definition[method.name] = {
      path: `/${serviceName}/${method.name}`,
      originalName: method.name.charAt(0).toLowerCase() + method.name.slice(1),
      requestStream: method.requestStream,
      responseStream: method.responseStream,
      requestSerialize: (value) => real().requestSerialize(value),
      requestDeserialize: (bytes) => real().requestDeserialize(bytes),
      responseSerialize: (value) => real().responseSerialize(value),
      responseDeserialize: (bytes) => real().responseDeserialize(bytes),
    };
  }
  return definition as unknown as Definition;
}

/** The builds servedServiceOnUse deferred. */
const deferred: (() => unknown)[] = [];

/** Builds what servedServiceOnUse deferred, so that no call waits for it. */
export function buildDeferredServices(): void {
  for (const build of deferred.splice(0)) build();
}

/** A generated client class (gen/): a `grpc.Client` with the service's methods, and the service definition. */
export type ServiceClientClass<Client> = (new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions) => Client) & { service: grpc.ServiceDefinition };

/** The client class of `serviceName`, as `grpc.loadPackageDefinition` makes it. */
export function serviceClient<Client>(root: protobuf.Root, serviceName: string): ServiceClientClass<Client> {
  return grpc.makeGenericClientConstructor(servedService(root, serviceName), serviceName.split('.').pop()!) as unknown as ServiceClientClass<Client>;
}
