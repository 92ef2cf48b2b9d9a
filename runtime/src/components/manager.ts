import { RuntimeError, ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import type { StateStore } from './contracts/state-store.js';
import type { Component, ComponentContext, ComponentRegistry } from './registry.js';
import { resolvedSecretValues, withoutSecrets } from './secret-redaction.js';
import { componentLabel, type ComponentCategory, type ComponentSpec } from './spec.js';

export interface LoadedComponent {
  readonly spec: ComponentSpec;
  readonly origin: 'built-in' | 'pluggable';
  readonly instance: Component;
}

/**
 * Fills a spec's secret references in (secrets/secret-refs.ts) just before its init; a failure is the component's
 * own, so `ignoreErrors` applies to it.
 */
export type PrepareSpec = (spec: ComponentSpec) => Promise<ComponentSpec>;

/** Specs taken as they are: no secret references to resolve. */
const AS_GIVEN: PrepareSpec = (spec) => Promise.resolve(spec);

/**
 * Initialises components in order (init timeout, `ignoreErrors`), holds them by name and closes them in reverse.
 * Secret stores come first, in their given order, so every other component's secret references can be read; what
 * a failed init says is cleared of the values those references resolved to.
 */
export class ComponentManager {
  readonly #loaded: LoadedComponent[] = [];
  readonly #byName = new Map<string, LoadedComponent>();

  constructor(
    private readonly registry: ComponentRegistry,
    private readonly ctx: ComponentContext,
    private readonly defaultInitTimeoutMs: number,
  ) {}

  async initAll(specs: readonly ComponentSpec[], log: Logger, prepare: PrepareSpec = AS_GIVEN): Promise<void> {
    const ordered = [...specs.filter((s) => s.category === 'secretstores'), ...specs.filter((s) => s.category !== 'secretstores')];
    for (const spec of ordered) {
      try {
        const ready = await prepare(spec);
        const loaded = await this.#initOne(ready).catch((err: unknown) => {
          throw withoutSecrets(err, resolvedSecretValues(spec, ready));
        });
        this.#loaded.push(loaded);
        this.#byName.set(spec.name, loaded);
        log.info({ component: spec.name, type: spec.type, origin: loaded.origin }, 'component loaded');
      } catch (err) {
        if (!spec.ignoreErrors) throw err;
        log.warn({ component: spec.name, type: spec.type, err: ensureError(err).message }, 'ignoring a component that failed to initialise (ignoreErrors: true)');
      }
    }
  }

  async #initOne(spec: ComponentSpec): Promise<LoadedComponent> {
    const reg = this.registry.forSpec(spec);
    const timeoutMs = spec.initTimeoutMs && spec.initTimeoutMs > 0 ? spec.initTimeoutMs : this.defaultInitTimeoutMs;
    // Async so that a factory throwing at once (bad metadata) rejects here, and is reported with the component.
    const creating = (async () => reg.create(spec, { ...this.ctx, log: this.ctx.log.child({ component: spec.name }) }))();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new RuntimeError('ERR_COMPONENT_INIT_TIMEOUT', `init timeout for component ${spec.name} (${spec.type}) after ${timeoutMs} ms, from ${spec.source}`));
      }, timeoutMs);
    });
    try {
      const instance = await Promise.race([creating, timeout]);
      return { spec, origin: reg.origin, instance };
    } catch (err) {
      // A late init must not leak a connection: close whatever it eventually produces.
      creating.then((c) => c.close(), () => undefined).catch(() => undefined);
      // Bad metadata is found by the component's own parser, which knows neither its name nor its file.
      if (err instanceof RuntimeError && err.code === 'ERR_COMPONENT_SPEC_INVALID') {
        throw new RuntimeError(err.code, `${componentLabel(spec)}: ${err.message}`, { cause: err });
      }
      if (err instanceof RuntimeError) throw err;
      throw new RuntimeError('ERR_COMPONENT_INIT', `failed to init component ${spec.name} (${spec.type}) from ${spec.source}: ${ensureError(err).message}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  get(name: string): LoadedComponent | undefined {
    return this.#byName.get(name);
  }

  list(category?: ComponentCategory): LoadedComponent[] {
    return category ? this.#loaded.filter((c) => c.spec.category === category) : [...this.#loaded];
  }

  /** The state store named `name`, or undefined. */
  stateStore(name: string): { spec: ComponentSpec; store: StateStore } | undefined {
    const c = this.#byName.get(name);
    return c && c.spec.category === 'state' ? { spec: c.spec, store: c.instance as unknown as StateStore } : undefined;
  }

  async closeAll(log: Logger): Promise<void> {
    for (const c of [...this.#loaded].reverse()) {
      try {
        await c.instance.close();
      } catch (err) {
        log.warn({ component: c.spec.name, err: ensureError(err).message }, 'error closing component');
      }
    }
    this.#loaded.length = 0;
    this.#byName.clear();
  }
}
