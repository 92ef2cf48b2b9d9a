/**
 * Self-managed webhook TLS: at start, reuse the bundle in the Secret or create/renew it; keep the webhook's
 * caBundle in step; renew the serving certificate before it expires (one timer, set for the renewal time).
 * Several replicas share the Secret: a write that loses the race re-reads and adopts the winner's bundle.
 * The CA lives much longer than serving certificates, so a renewal keeps the caBundle unchanged and the other
 * replica's certificate stays trusted until it renews too.
 */
import type { Logger } from 'pino';
import { InjectorError } from '../errors.js';
import { bundleProblem, generateCa, issueServingCert, notAfter, type KeyPairPem, type TlsBundle } from './generate.js';
import type { CaBundleTarget, TlsBundleStore } from './stores.js';

export interface SelfManagedTlsOptions {
  readonly store: TlsBundleStore;
  readonly caBundle: CaBundleTarget | undefined;
  readonly dnsNames: readonly string[];
  readonly log: Logger;
  readonly now?: () => Date;
  readonly caValidityDays?: number;
  readonly servingValidityDays?: number;
  readonly renewBeforeDays?: number;
}

const DAY_MS = 86_400_000;
/** setTimeout cannot wait longer than this; a longer wait is done in legs. */
const MAX_TIMER_MS = 2_147_483_647;
const MAX_WRITE_ATTEMPTS = 5;

export class SelfManagedTls {
  private timer: NodeJS.Timeout | undefined;
  private listeners: Array<(pair: KeyPairPem) => void> = [];
  private current: TlsBundle | undefined;

  constructor(private readonly opts: SelfManagedTlsOptions) {}

  private now(): Date {
    return this.opts.now ? this.opts.now() : new Date();
  }

  private get renewBeforeMs(): number {
    return (this.opts.renewBeforeDays ?? 30) * DAY_MS;
  }

  /** Returns a usable serving pair, with the Secret and caBundle in step. */
  async ensure(): Promise<KeyPairPem> {
    for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS; attempt++) {
      const stored = await this.opts.store.read();
      const problem = stored
        ? bundleProblem(stored.bundle, { dnsNames: this.opts.dnsNames, now: this.now(), renewBeforeMs: this.renewBeforeMs })
        : { replace: 'ca' as const, reason: 'no TLS Secret yet' };
      if (stored && !problem) return this.adopt(stored.bundle);
      this.opts.log.info({ reason: problem?.reason, replace: problem?.replace }, 'issuing webhook TLS');
      const ca = problem?.replace === 'serving' && stored ? stored.bundle.ca : generateCa({ commonName: 'svc-injector-ca', validityDays: this.opts.caValidityDays ?? 3650, now: this.now() });
      const serving = issueServingCert(ca, { dnsNames: this.opts.dnsNames, validityDays: this.opts.servingValidityDays ?? 365, now: this.now() });
      const bundle = { ca, serving };
      if (await this.opts.store.write(bundle, stored)) return this.adopt(bundle);
      this.opts.log.info({ attempt }, 'another replica wrote the TLS Secret first; reading it');
    }
    throw new InjectorError('ERR_TLS', `could not settle the TLS Secret after ${MAX_WRITE_ATTEMPTS} attempts`);
  }

  private async adopt(bundle: TlsBundle): Promise<KeyPairPem> {
    const changed = await this.opts.caBundle?.ensure(bundle.ca.cert);
    if (changed) this.opts.log.info({ webhooks: changed }, 'webhook caBundle updated');
    const rotated = this.current !== undefined && this.current.serving.cert !== bundle.serving.cert;
    this.current = bundle;
    if (rotated) for (const listener of this.listeners) listener(bundle.serving);
    return bundle.serving;
  }

  onRotate(listener: (pair: KeyPairPem) => void): void {
    this.listeners.push(listener);
  }

  /** Arms the renewal timer for the current serving certificate. */
  scheduleRenewal(): void {
    if (!this.current) return;
    const due = notAfter(this.current.serving.cert).getTime() - this.renewBeforeMs;
    const wait = Math.max(0, due - this.now().getTime());
    this.timer = setTimeout(() => {
      const renew = wait > MAX_TIMER_MS ? Promise.resolve() : this.ensure().then(() => undefined);
      renew.then(
        () => this.scheduleRenewal(),
        (err: unknown) => {
          this.opts.log.error({ err: (err as Error).message }, 'webhook TLS renewal failed; retrying in one hour');
          this.timer = setTimeout(() => this.scheduleRenewal(), 3_600_000);
          this.timer.unref();
        },
      );
    }, Math.min(wait, MAX_TIMER_MS));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}
