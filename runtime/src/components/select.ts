import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { isInScope, type ComponentSpec } from './spec.js';

/**
 * Keeps the components this app may load, in order: namespace filter, duplicate names (fatal, checked before
 * scopes so an out-of-scope duplicate is still caught), then scopes.
 */
export function selectComponents(
  specs: readonly ComponentSpec[],
  opts: { appId: string; namespace: string | undefined; log: Logger },
): ComponentSpec[] {
  const seen = new Map<string, ComponentSpec>();
  const selected: ComponentSpec[] = [];
  for (const spec of specs) {
    if (opts.namespace && spec.namespace && spec.namespace !== opts.namespace) {
      opts.log.info({ component: spec.name, namespace: spec.namespace }, 'skipping a component of another namespace');
      continue;
    }
    const earlier = seen.get(spec.name);
    if (earlier) {
      throw new RuntimeError(
        'ERR_COMPONENT_DUPLICATE',
        `duplicate definition of component name ${spec.name} (${spec.type}/${spec.version} in ${spec.source}) ` +
          `with existing ${earlier.name} (${earlier.type}/${earlier.version} in ${earlier.source})`,
      );
    }
    seen.set(spec.name, spec);
    if (!isInScope(spec, opts.appId)) {
      opts.log.info({ component: spec.name, scopes: spec.scopes, appId: opts.appId }, 'skipping a component not scoped to this app');
      continue;
    }
    selected.push(spec);
  }
  return selected;
}
