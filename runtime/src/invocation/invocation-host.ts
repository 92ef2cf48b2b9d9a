import { randomUUID } from 'node:crypto';
import type { Registry } from 'prom-client';
import type { AppInvoker } from '../app/app-invocation.js';
import type { GrpcAppProxy } from '../app/grpc-app-proxy.js';
import type { NameResolver } from '../components/contracts/name-resolution.js';
import type { NameResolutionSpec } from '../components/configuration-resource.js';
import { createNameResolver } from '../components/name-resolution/create-resolver.js';
import type { ComponentSpec } from '../components/spec.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import type { InternalStreamRoutes } from '../internal/internal-server.js';
import { StreamClients } from '../internal/stream-client.js';
import { SharedSecretIdentity, type CallerIdentity } from './caller-identity.js';
import { inboundInvocation, inboundProxy, type AccessCheck } from './inbound.js';
import { InvocationApi } from './invocation-api.js';
import { InvocationMetrics } from './metrics.js';
import { RemoteSidecars } from './remote-sidecars.js';
import type { AppRef } from './target.js';
import { INVOKE_METHOD, PROXY_METHOD } from './wire.js';
import type { Resiliency } from '../resiliency/resiliency.js';

export interface InvocationHostOptions {
  readonly self: AppRef;
  readonly app: AppInvoker | undefined;
  /** The app's gRPC server for proxied calls (`--app-protocol grpc`); closed when this part stops. */
  readonly grpcApp: GrpcAppProxy | undefined;
  readonly internal: { readonly routes: InternalStreamRoutes; readonly address: () => string };
  /** Picks the default name resolution: Kubernetes mode's is the API server's pods. */
  readonly mode: 'standalone' | 'kubernetes';
  /** `--kubeconfig`, for Kubernetes name resolution outside a pod. */
  readonly kubeconfig: string | undefined;
  /** Read at start: the Configuration's `spec.nameResolution` (undefined: the mode's default). */
  readonly resolution: () => NameResolutionSpec | undefined;
  /** Read at start: the actor state store's spec (its Redis or PostgreSQL is the standalone default). */
  readonly actorStore: () => ComponentSpec | undefined;
  /** `SVC_INVOKE_TOKEN`; undefined: the secret the name resolution store keeps. */
  readonly invokeToken: string | undefined;
  /** How sidecars prove who calls (Kubernetes: ServiceAccount tokens); undefined: the shared secret. */
  readonly identity?: CallerIdentity;
  readonly access: AccessCheck;
  readonly resiliency: () => Resiliency;
  readonly metrics: Registry;
  readonly log: Logger;
}

/**
 * The svcd part for service invocation: serves calls from other sidecars on the internal port (added at
 * construction, before the port opens), and once started makes this sidecar findable through name resolution.
 */
export class InvocationHost {
  readonly name = 'invocation';
  readonly api: InvocationApi;
  readonly #clients = new StreamClients();
  readonly #remote: RemoteSidecars;
  #resolver: NameResolver | undefined;
  #secret: string | undefined;
  readonly #identity: CallerIdentity;

  constructor(private readonly o: InvocationHostOptions) {
    const metrics = new InvocationMetrics(o.metrics);
    const log = o.log.child({ scope: 'invocation' });
    this.#identity = o.identity ?? new SharedSecretIdentity(() => this.#secret);
    this.#remote = new RemoteSidecars({
      self: o.self,
      resolver: () => this.#requireResolver(),
      clients: this.#clients,
      credentials: () => this.#identity.credentials(),
    });
    this.api = new InvocationApi({ self: o.self, app: o.app, grpcApp: o.grpcApp, remote: this.#remote, metrics, resiliency: o.resiliency });
    const inbound = { self: o.self, app: o.app, grpcApp: o.grpcApp, identity: this.#identity, access: o.access, metrics, log };
    o.internal.routes.addStreamHandlers({ [INVOKE_METHOD]: inboundInvocation(inbound), [PROXY_METHOD]: inboundProxy(inbound) }, log);
  }

  async start(): Promise<void> {
    const resolver = await createNameResolver(this.o.resolution(), { mode: this.o.mode, kubeconfig: this.o.kubeconfig, actorStore: this.o.actorStore(), log: this.o.log });
    if (!this.o.identity) this.#secret = this.o.invokeToken ?? (await resolver.sharedSecret());
    if (!this.o.identity && this.#secret === undefined) throw new RuntimeError('ERR_CONFIG_INVALID', `name resolution '${resolver.kind}' keeps no shared secret: give every sidecar the same SVC_INVOKE_TOKEN`);
    const address = this.o.internal.address();
    if (address === '') throw new Error('the internal gRPC server must be listening before service invocation starts');
    await resolver.register({ ...this.o.self, hostId: randomUUID(), address });
    this.#resolver = resolver;
    this.o.log.info({ nameResolution: resolver.kind, callerIdentity: this.#identity.kind, address }, 'service invocation: this sidecar is findable');
  }

  async stop(): Promise<void> {
    await this.#resolver?.close();
    this.#resolver = undefined;
    this.#clients.close();
    this.o.grpcApp?.close();
  }

  /** `/v1.0/metadata`: how apps are found, and the apps called lately with their sidecars. */
  metadata(): Record<string, unknown> {
    return { invocation: { nameResolution: this.#resolver?.kind ?? 'not started', resolvedPeers: this.#remote.resolvedPeers() } };
  }

  #requireResolver(): NameResolver {
    if (!this.#resolver) throw new RuntimeError('ERR_DIRECT_INVOKE', 'service invocation is not started yet');
    return this.#resolver;
  }
}
