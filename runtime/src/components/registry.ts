import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import type { ComponentCategory, ComponentSpec } from './spec.js';

/** What every live component offers the runtime, whatever its API. */
export interface Component {
  /** Capabilities shown in `/v1.0/metadata`; state stores report theirs through `features()` instead. */
  capabilities?(): readonly string[];
  /** Live health, for `/v1.0/healthz/outbound`; built-ins that cannot fail separately omit it. */
  health?(): { ok: boolean; reason?: string };
  /**
   * A cheap round trip to the backing server (for `/v1.0/healthz/outbound`): resolves when it answers, rejects with
   * the reason. The caller bounds it with `timeoutMs` and caches the answer; components without a server omit it.
   */
  pingServer?(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface ComponentContext {
  readonly appId: string;
  readonly dataDir: string;
  readonly log: Logger;
}

export interface ComponentRegistration {
  /** Full type, `<category>.<name>`, e.g. `state.redis`. */
  readonly type: string;
  readonly category: ComponentCategory;
  readonly origin: 'built-in' | 'pluggable';
  /** Creates and initialises an instance from its spec; the manager bounds it with the init timeout. */
  create(spec: ComponentSpec, ctx: ComponentContext): Promise<Component>;
}

/** The component types this process can instantiate. An instance, not module state: each svcd wires its own. */
export class ComponentRegistry {
  readonly #byType = new Map<string, ComponentRegistration>();

  /** Later registrations win: a pluggable socket named like a built-in replaces it (and is logged by the caller). */
  register(reg: ComponentRegistration): void {
    this.#byType.set(reg.type.toLowerCase(), reg);
  }

  has(type: string): boolean {
    return this.#byType.has(type.toLowerCase());
  }

  get(type: string): ComponentRegistration {
    const reg = this.#byType.get(type.toLowerCase());
    if (!reg) {
      const known = [...this.#byType.keys()].sort().join(', ');
      throw new RuntimeError('ERR_COMPONENT_TYPE_UNKNOWN', `unknown component type ${type}; registered types: ${known}`);
    }
    return reg;
  }

  types(): string[] {
    return [...this.#byType.keys()].sort();
  }
}
