/**
 * Name resolution: where the sidecars of an app id listen on their internal port. A component chosen by the
 * Configuration resource (`spec.nameResolution`), with a default per mode (docs/invocation.md).
 */

/** One sidecar as others find it. */
export interface SidecarRecord {
  readonly appId: string;
  readonly namespace: string;
  /** Random per process start. */
  readonly hostId: string;
  /** `host:port` of its internal gRPC server. */
  readonly address: string;
}

export interface NameResolver {
  /** `sqlite`, `redis`, `postgresql`, `static`, `kubernetes`: for logs and metadata. */
  readonly kind: string;
  /** Makes this sidecar findable (renewed until `close`). */
  register(self: SidecarRecord): Promise<void>;
  /** The internal addresses of the live sidecars of `appId` in `namespace`; empty when there are none. */
  resolve(appId: string, namespace: string): Promise<readonly string[]>;
  /**
   * The secret sidecars present to each other on the internal port, kept where they all read it (created by the
   * first one); undefined when this resolver keeps none.
   */
  sharedSecret(): Promise<string | undefined>;
  /** Removes this sidecar's record and closes connections. */
  close(): Promise<void>;
}
