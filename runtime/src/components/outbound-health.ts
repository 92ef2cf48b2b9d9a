import { ensureError } from '../errors/runtime-error.js';
import type { ComponentManager, LoadedComponent } from './manager.js';

export interface OutboundHealthOptions {
  /** Upper bound on one component's ping: a hung server answers "unhealthy", not a hung health check. */
  readonly pingTimeoutMs: number;
  /** How long a ping's answer is reused, so frequent probes stay cheap for the backing servers. */
  readonly cacheMs: number;
}

interface Checked {
  readonly at: number;
  /** The problem, or undefined when healthy; pending while the ping runs, so concurrent probes share one ping. */
  readonly problem: Promise<string | undefined>;
}

/** Component health for `/v1.0/healthz/outbound`: each component's own report, then a ping of its backing server. */
export class OutboundHealth {
  /** By component name: unique within a svcd. */
  readonly #checked = new Map<string, Checked>();

  constructor(
    private readonly components: Pick<ComponentManager, 'list'>,
    private readonly opts: OutboundHealthOptions,
  ) {}

  /** One line per unhealthy component, naming it; empty when all are healthy. */
  async problems(): Promise<string[]> {
    const loaded = this.components.list();
    const names = new Set(loaded.map((c) => c.spec.name));
    for (const name of this.#checked.keys()) if (!names.has(name)) this.#checked.delete(name);
    const problems = await Promise.all(loaded.map((c) => this.#problem(c)));
    return loaded.flatMap((c, i) => (problems[i] === undefined ? [] : [`component '${c.spec.name}' (${c.spec.type}): ${problems[i]}`]));
  }

  #problem(c: LoadedComponent): Promise<string | undefined> {
    const reported = c.instance.health?.();
    if (reported && !reported.ok) return Promise.resolve(reported.reason ?? 'unhealthy');
    const ping = c.instance.pingServer?.bind(c.instance);
    if (!ping) return Promise.resolve(undefined);
    const cached = this.#checked.get(c.spec.name);
    if (cached && Date.now() - cached.at < this.opts.cacheMs) return cached.problem;
    const problem = withTimeout(ping(this.opts.pingTimeoutMs), this.opts.pingTimeoutMs).then(
      () => undefined,
      (err: unknown) => ensureError(err).message,
    );
    this.#checked.set(c.spec.name, { at: Date.now(), problem });
    return problem;
  }
}

async function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
