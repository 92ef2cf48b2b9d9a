import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { InjectorError } from '../errors.js';
import { apiStatus, describeApiFailure } from '../kube/access.js';
import type { ComponentObject } from './component-containers.js';

/** Where the injector reads the Components of a namespace from. */
export interface ComponentSource {
  list(namespace: string): Promise<ComponentObject[]>;
}

export const COMPONENT_RESOURCE = { group: 'svc.io', version: 'v1alpha1', plural: 'components' } as const;

export class KubernetesComponentSource implements ComponentSource {
  private readonly api: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  async list(namespace: string): Promise<ComponentObject[]> {
    try {
      const list = (await this.api.listNamespacedCustomObject({ ...COMPONENT_RESOURCE, namespace })) as { items?: ComponentObject[] };
      return list.items ?? [];
    } catch (err) {
      // No CRD installed means no Components, not a broken webhook.
      if (apiStatus(err) === 404) return [];
      throw new InjectorError('ERR_KUBERNETES_API', `cannot list components.svc.io in namespace ${namespace}: ${describeApiFailure(err)}`, { cause: err });
    }
  }
}
