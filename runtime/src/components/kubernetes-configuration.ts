/**
 * Kubernetes mode: the Configuration object the pod's `svc.io/config` annotation names (`configurations.svc.io`
 * in the pod's namespace), read with get rights only. Imported on demand, like the rest of the Kubernetes client.
 */
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { CONFIGURATION_KIND, parseConfiguration, type RuntimeConfiguration } from './configuration-resource.js';
import { apiStatus, type SvcObjectGetter, type SvcResource } from './kubernetes-loader.js';

export const CONFIGURATIONS: SvcResource = { plural: 'configurations', version: 'v1alpha1' };

export async function loadKubernetesConfiguration(name: string, namespace: string | undefined, getter: SvcObjectGetter, log: Logger): Promise<RuntimeConfiguration> {
  if (!namespace) throw new RuntimeError('ERR_CONFIG_INVALID', '--mode kubernetes needs --namespace / NAMESPACE (the injector sets it from the downward API)');
  let object: unknown;
  try {
    object = await getter.get(namespace, name);
  } catch (err) {
    if (apiStatus(err) !== 404) throw err;
    const problem = `no Configuration '${name}' in namespace ${namespace} (the svc.io/config annotation names it; the chart installs the configurations.svc.io CRD)`;
    throw new RuntimeError('ERR_CONFIGURATION_INVALID', problem, { cause: err });
  }
  // An object read by name carries apiVersion and kind; add them when a server leaves them out.
  const doc = { apiVersion: 'svc.io/v1alpha1', kind: CONFIGURATION_KIND, ...(object as object) };
  const configuration = parseConfiguration(doc, `kubernetes: ${namespace}/${name}`);
  log.info({ configuration: configuration.name, source: configuration.source }, 'configuration loaded');
  return configuration;
}
