import * as grpc from '@grpc/grpc-js';
import { REFLECTION_VERSIONS, reflectionClientConstructor, type ReflectionVersion, type ServerReflectionResponse__Output } from '@svc/proto';
import { componentChannelOptions, unixTarget } from './channel-options.js';

/** Reflection answers are a few KiB. */
const MAX_REFLECTION_REPLY_BYTES = 4 * 1024 * 1024;

export interface ReflectionListing {
  readonly version: ReflectionVersion;
  readonly services: string[];
}

function listWith(version: ReflectionVersion, socketPath: string, deadline: Date): Promise<string[]> {
  const Client = reflectionClientConstructor(version);
  // waitForReady: a socket that just appeared may not accept yet; keep trying (quickly) until the deadline.
  const client = new Client(unixTarget(socketPath), grpc.credentials.createInsecure(), componentChannelOptions(MAX_REFLECTION_REPLY_BYTES));
  return new Promise<string[]>((resolve, reject) => {
    let settled = false;
    const stream = client.ServerReflectionInfo(new grpc.Metadata({ waitForReady: true }), { deadline });
    const finish = (err: Error | undefined, services?: string[]) => {
      if (settled) return;
      settled = true;
      stream.cancel();
      client.close();
      if (err) reject(err);
      else resolve(services ?? []);
    };
    stream.on('data', (res: ServerReflectionResponse__Output) => {
      if (res.errorResponse) finish(new Error(`reflection error ${res.errorResponse.errorCode}: ${res.errorResponse.errorMessage}`));
      else finish(undefined, (res.listServicesResponse?.service ?? []).map((s) => s.name));
    });
    stream.on('error', (err: Error) => finish(err));
    stream.on('end', () => finish(new Error('reflection stream ended without an answer')));
    stream.write({ host: '', listServices: '*' });
  });
}

/**
 * Lists the services a socket serves through gRPC server reflection: `grpc.reflection.v1` first, then
 * `v1alpha` (what most existing components serve). The whole exchange is bounded by `timeoutMs`, so a socket
 * nobody answers on cannot hang discovery.
 */
export async function listServicesByReflection(socketPath: string, timeoutMs: number): Promise<ReflectionListing> {
  const deadline = new Date(Date.now() + timeoutMs);
  let lastError: unknown;
  for (const version of REFLECTION_VERSIONS) {
    try {
      return { version, services: await listWith(version, socketPath, deadline) };
    } catch (err) {
      lastError = err;
      if ((err as Partial<grpc.ServiceError>).code !== grpc.status.UNIMPLEMENTED) break;
    }
  }
  throw lastError;
}
