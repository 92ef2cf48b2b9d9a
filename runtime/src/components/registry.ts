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
  /** Where the resources were read from (standalone), for files a component names relative to them. */
  readonly resourcesPaths: readonly string[];
  /** The API server and namespace svcd reads (kubernetes mode), for components that read it too. */
  readonly kubernetes?: { readonly kubeconfig: string | undefined; readonly namespace: string | undefined };
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

/**
 * A Component with this annotation set to "true" is served by the pluggable socket of its type's name even when a
 * built-in has that name. Without it the built-in stays: a socket dropped into the folder as `redis.sock` must
 * not silently receive what the app saves in `state.redis`.
 */
export const PLUGGABLE_ANNOTATION = 'svc.io/pluggable';

export const wantsPluggable = (spec: Pick<ComponentSpec, 'annotations'>): boolean => spec.annotations[PLUGGABLE_ANNOTATION] === 'true';

/** The component types this process can instantiate. An instance, not module state: each svcd wires its own. */
export class ComponentRegistry {
  readonly #byType = new Map<string, ComponentRegistration>();
  /** Pluggable sockets named like a built-in: only Components that ask for them (`PLUGGABLE_ANNOTATION`) use them. */
  readonly #besideBuiltIns = new Map<string, ComponentRegistration>();

  /** Later registrations win, except that a pluggable type never replaces a built-in one (it is kept beside it). */
  register(reg: ComponentRegistration): void {
    const key = reg.type.toLowerCase();
    if (reg.origin === 'pluggable' && this.#byType.get(key)?.origin === 'built-in') this.#besideBuiltIns.set(key, reg);
    else this.#byType.set(key, reg);
  }

  has(type: string): boolean {
    return this.#byType.has(type.toLowerCase());
  }

  /** Is what `spec` asks for registered (for an annotated spec: a pluggable socket)? */
  hasFor(spec: Pick<ComponentSpec, 'type' | 'annotations'>): boolean {
    const key = spec.type.toLowerCase();
    if (!wantsPluggable(spec)) return this.#byType.has(key);
    return this.#besideBuiltIns.has(key) || this.#byType.get(key)?.origin === 'pluggable';
  }

  /** The registration `spec` uses: its type's, or with the annotation the pluggable socket of that name. */
  forSpec(spec: Pick<ComponentSpec, 'type' | 'annotations' | 'name'>): ComponentRegistration {
    if (!wantsPluggable(spec)) return this.get(spec.type);
    const key = spec.type.toLowerCase();
    const reg = this.#besideBuiltIns.get(key) ?? (this.#byType.get(key)?.origin === 'pluggable' ? this.#byType.get(key) : undefined);
    if (!reg) throw new RuntimeError('ERR_COMPONENT_TYPE_UNKNOWN', `component ${spec.name} asks for a pluggable ${spec.type} (annotation ${PLUGGABLE_ANNOTATION}: "true") and no such socket was found`);
    return reg;
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

  /** The built-in types of a category (`state` → `state.in-memory`, …), for messages. */
  builtInTypes(category: string): string[] {
    return [...this.#byType.values()].filter((r) => r.origin === 'built-in' && r.category === category).map((r) => r.type).sort();
  }
}
