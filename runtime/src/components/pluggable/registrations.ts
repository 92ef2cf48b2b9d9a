import { loadComponentsProto } from '@svc/proto';
import type { Logger } from '../../log/logger.js';
import { PLUGGABLE_ANNOTATION, type Component, type ComponentContext, type ComponentRegistration, type ComponentRegistry } from '../registry.js';
import type { ComponentSpec } from '../spec.js';
import { PluggableBinding } from './bindings.js';
import { ComponentConnection } from './connection.js';
import type { DiscoveredComponent } from './discovery.js';
import { PluggablePubSub } from './pubsub.js';
import type { ReplyBudget } from './reply-budget.js';
import type { DiscoveredApi } from './service-map.js';
import { PluggableSecretStore } from './secret-store.js';
import { PluggableStateStore } from './state-store.js';

export interface PluggableSettings {
  readonly pingIntervalMs: number;
  readonly maxReplyBytes: number;
  /** One for the whole process: every component's calls draw on it. */
  readonly replyBudget: ReplyBudget;
}

interface Adapter extends Component {
  handshake(): Promise<void>;
  ping(deadline: Date): Promise<unknown>;
}

/** Builds the adapter of one API over a fresh per-instance connection; the caller runs the handshake. */
function adapterFor(api: DiscoveredApi, conn: ComponentConnection, spec: ComponentSpec, ctx: ComponentContext): Adapter {
  const proto = loadComponentsProto()[api.pkg];
  switch (api.category) {
    case 'state':
      return new PluggableStateStore(conn, proto, spec.metadata);
    case 'pubsub':
      // consumerID defaults to the app id, as pub/sub components expect.
      return new PluggablePubSub(conn, proto, spec.name, { consumerID: ctx.appId, ...spec.metadata }, ctx.log);
    case 'bindings': {
      const sides = { input: api.services.includes('InputBinding'), output: api.services.includes('OutputBinding') };
      return new PluggableBinding(conn, proto, sides, spec.metadata, ctx.log);
    }
    case 'secretstores':
      return new PluggableSecretStore(conn, proto, spec.metadata);
  }
}

/** One registration per API the socket offers: `state.<name>`, `pubsub.<name>`, `bindings.<name>`, `secretstores.<name>`. */
export function registrationsFor(component: DiscoveredComponent, settings: PluggableSettings): ComponentRegistration[] {
  return component.apis.map((api) => ({
    type: `${api.category}.${component.name}`,
    category: api.category,
    origin: 'pluggable' as const,
    async create(spec: ComponentSpec, ctx: ComponentContext): Promise<Component> {
      const conn = new ComponentConnection({ instance: spec.name, type: spec.type, socketPath: component.socketPath, ...settings, log: ctx.log });
      const adapter = adapterFor(api, conn, spec, ctx);
      try {
        await conn.start({ handshake: () => adapter.handshake(), ping: (deadline) => adapter.ping(deadline) });
      } catch (err) {
        await conn.close();
        throw err;
      }
      return adapter;
    },
  }));
}

/**
 * Registers every API of the discovered components. A socket named like a built-in is kept beside it (the
 * registry's `PLUGGABLE_ANNOTATION`), loudly: only a Component that names it explicitly uses it.
 */
export function registerDiscovered(registry: ComponentRegistry, components: readonly DiscoveredComponent[], settings: PluggableSettings, log: Logger): void {
  for (const component of components) {
    for (const reg of registrationsFor(component, settings)) {
      if (registry.has(reg.type) && registry.get(reg.type).origin === 'built-in') {
        log.warn(
          { type: reg.type, socket: component.socketPath },
          `a pluggable component socket is named like a built-in component; the built-in stays, and only Components annotated ${PLUGGABLE_ANNOTATION}: "true" use the socket`,
        );
      }
      registry.register(reg);
      const api = component.apis.find((a) => `${a.category}.${component.name}` === reg.type);
      log.info({ type: reg.type, socket: component.socketPath, package: api?.pkg, reflection: component.reflection }, 'pluggable component registered');
    }
  }
}
