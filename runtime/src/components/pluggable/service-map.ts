import { splitComponentService, SVC_COMPONENTS_PACKAGE, type ComponentsPackage } from '@svc/proto';

export type PluggableCategory = 'state' | 'pubsub' | 'bindings' | 'secretstores';

/** Which reflected service makes a socket offer which component API; every other service is ignored. */
const CATEGORY_OF_SERVICE: Readonly<Record<string, PluggableCategory>> = {
  StateStore: 'state',
  PubSub: 'pubsub',
  InputBinding: 'bindings',
  OutputBinding: 'bindings',
  SecretStore: 'secretstores',
};

/** One component API behind a socket, and the package its services must be called under. */
export interface DiscoveredApi {
  readonly category: PluggableCategory;
  readonly pkg: ComponentsPackage;
  /** Short names of every service of that package the socket lists, e.g. StateStore, TransactionalStateStore. */
  readonly services: readonly string[];
}

/**
 * Maps the reflected service names of a socket to the APIs it offers. Both package names are recognised; when a
 * socket lists an API under both, svc.proto wins.
 */
export function apisOf(serviceNames: readonly string[]): DiscoveredApi[] {
  const servicesByPkg = new Map<ComponentsPackage, string[]>();
  const pkgsByCategory = new Map<PluggableCategory, Set<ComponentsPackage>>();
  for (const full of serviceNames) {
    const split = splitComponentService(full);
    if (!split) continue;
    servicesByPkg.set(split.pkg, [...(servicesByPkg.get(split.pkg) ?? []), split.service]);
    const category = CATEGORY_OF_SERVICE[split.service];
    if (category) pkgsByCategory.set(category, (pkgsByCategory.get(category) ?? new Set()).add(split.pkg));
  }
  return [...pkgsByCategory].map(([category, pkgs]) => {
    const pkg = pkgs.has(SVC_COMPONENTS_PACKAGE) ? SVC_COMPONENTS_PACKAGE : [...pkgs][0]!;
    return { category, pkg, services: servicesByPkg.get(pkg) ?? [] };
  });
}
