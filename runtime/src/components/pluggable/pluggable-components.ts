import { RuntimeError, ensureError } from '../../errors/runtime-error.js';
import type { Logger } from '../../log/logger.js';
import type { ComponentRegistry } from '../registry.js';
import type { ComponentSpec } from '../spec.js';
import { discoverPluggableComponents, probeSocket } from './discovery.js';
import { registerDiscovered, type PluggableSettings } from './registrations.js';
import type { SocketOwners } from './socket-folder.js';
import { waitForSocket } from './socket-wait.js';

export interface PluggableOptions extends PluggableSettings {
  readonly folder: string;
  readonly owners: SocketOwners;
  readonly probeTimeoutMs: number;
  readonly waitTimeoutMs: number;
  readonly log: Logger;
}

const PLUGGABLE_CATEGORIES: ReadonlySet<string> = new Set(['state', 'pubsub', 'bindings', 'secretstores']);

/** Puts pluggable component types into the registry: those present at start, then those specs wait for. */
export class PluggableComponents {
  constructor(
    private readonly registry: ComponentRegistry,
    private readonly opts: PluggableOptions,
  ) {}

  /** Scans the sockets folder once and registers every API found. */
  async discover(): Promise<void> {
    const found = await discoverPluggableComponents(this.opts.folder, this.opts);
    registerDiscovered(this.registry, found, this.opts, this.opts.log);
  }

  /**
   * For specs whose type is not registered yet (`state.<socket>` of a component still starting), waits for the
   * socket, probes it and registers it. Fails naming the socket, the folder and the scoping rule, unless every
   * spec using that socket has `ignoreErrors`.
   */
  async awaitSocketsFor(specs: readonly ComponentSpec[]): Promise<void> {
    const byName = new Map<string, ComponentSpec[]>();
    for (const spec of specs) {
      if (this.registry.hasFor(spec) || !PLUGGABLE_CATEGORIES.has(spec.category)) continue;
      const name = spec.type.slice(spec.type.indexOf('.') + 1);
      byName.set(name, [...(byName.get(name) ?? []), spec]);
    }
    await Promise.all([...byName].map(([name, users]) => this.#awaitOne(name, users)));
  }

  async #awaitOne(name: string, users: readonly ComponentSpec[]): Promise<void> {
    const { folder, waitTimeoutMs, log } = this.opts;
    if (waitTimeoutMs > 0) log.info({ socket: name, folder, timeoutMs: waitTimeoutMs, components: users.map((s) => s.name) }, 'waiting for a pluggable component socket');
    try {
      const socket = await waitForSocket(folder, name, this.opts.owners, waitTimeoutMs, log);
      if (!socket) throw this.#notFound(name, users);
      const component = await probeSocket(socket, this.opts.probeTimeoutMs).catch((err: unknown) => {
        throw new RuntimeError('ERR_PLUGGABLE_DISCOVERY', `pluggable component socket ${socket.path} appeared but did not answer gRPC reflection: ${ensureError(err).message}`, { cause: err });
      });
      registerDiscovered(this.registry, [component], this.opts, log);
      const missing = users.filter((s) => !this.registry.hasFor(s));
      if (missing.length > 0) {
        const offered = component.apis.map((a) => `${a.category}.${name}`).join(', ') || 'none';
        throw new RuntimeError('ERR_PLUGGABLE_DISCOVERY', `pluggable component socket ${socket.path} does not offer ${missing.map((s) => `${s.type} (component ${s.name})`).join(', ')}; it offers: ${offered}`);
      }
    } catch (err) {
      if (!users.every((s) => s.ignoreErrors)) throw err;
      log.warn({ socket: name, err: ensureError(err).message }, 'pluggable component not available; its components have ignoreErrors: true');
    }
  }

  #notFound(name: string, users: readonly ComponentSpec[]): RuntimeError {
    const specs = users.map((s) => `${s.name} (${s.type}, from ${s.source})`).join(', ');
    if (this.opts.waitTimeoutMs === 0) {
      // Standalone: no component is expected to come late, so this is most often a type svc does not build in.
      const category = users[0]!.category;
      const builtIns = this.registry.builtInTypes(category);
      return new RuntimeError(
        'ERR_COMPONENT_TYPE_UNKNOWN',
        `component ${specs}: '${users[0]!.type}' is not a built-in type (built-in ${category} types: ${builtIns.join(', ') || 'none'}) ` +
          `and no pluggable component socket ${name}.sock is in ${this.opts.folder}. ` +
          'For a pluggable component, start it before svcd, or give --pluggable-wait-timeout to wait for its socket.',
      );
    }
    return new RuntimeError(
      'ERR_PLUGGABLE_SOCKET_NOT_FOUND',
      `no socket for pluggable component '${name}' appeared in ${this.opts.folder} within ${this.opts.waitTimeoutMs} ms ` +
        `(expected a Unix socket named ${name}.<ext>, e.g. ${name}.sock), needed by component ${specs}. ` +
        'Start the component before or together with svcd, and point both at the same sockets folder. ' +
        "On Kubernetes, scope the component (scopes) to the app whose pod runs the component's container: " +
        "other apps' sidecars have no such socket.",
    );
  }
}
