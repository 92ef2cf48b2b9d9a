import type { Logger } from '../../log/logger.js';
import type { NameResolver, SidecarRecord } from '../contracts/name-resolution.js';

/** What a store keeps for name resolution: records that expire unless renewed, and one shared secret. */
export interface RegistryBackend {
  readonly kind: string;
  /** Creates tables/files when missing. */
  init(): Promise<void>;
  /** Inserts or renews `record`, live for `ttlMs` from now. */
  renew(record: SidecarRecord, ttlMs: number): Promise<void>;
  remove(record: SidecarRecord): Promise<void>;
  /** Addresses of the unexpired records of an app. */
  live(appId: string, namespace: string): Promise<string[]>;
  /** The shared secret, created (atomically, first writer wins) when missing. */
  secret(newSecret: string): Promise<string>;
  close(): Promise<void>;
}

export interface LeaseRegistryOptions {
  readonly ttlMs: number;
  readonly log: Logger;
  /** A fresh random secret, offered in case none is stored yet. */
  readonly newSecret: () => string;
}

/**
 * Name resolution through a store the sidecars share: each renews its record every third of the TTL, so a sidecar
 * killed without a word drops out within one TTL; a graceful stop removes it at once.
 */
export class LeaseRegistry implements NameResolver {
  #timer: NodeJS.Timeout | undefined;
  #self: SidecarRecord | undefined;

  constructor(
    private readonly backend: RegistryBackend,
    private readonly o: LeaseRegistryOptions,
  ) {}

  get kind(): string {
    return this.backend.kind;
  }

  async register(self: SidecarRecord): Promise<void> {
    await this.backend.init();
    await this.backend.renew(self, this.o.ttlMs);
    this.#self = self;
    this.#timer = setInterval(() => {
      this.backend.renew(self, this.o.ttlMs).catch((err: Error) => this.o.log.warn({ err: err.message, store: this.kind }, 'name resolution: renewing this sidecar failed; retrying'));
    }, Math.max(100, Math.floor(this.o.ttlMs / 3)));
    this.#timer.unref();
  }

  resolve(appId: string, namespace: string): Promise<readonly string[]> {
    return this.backend.live(appId, namespace);
  }

  async sharedSecret(): Promise<string> {
    await this.backend.init();
    return this.backend.secret(this.o.newSecret());
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#self) await this.backend.remove(this.#self).catch(() => undefined);
    await this.backend.close();
  }
}
