/**
 * The resources svcd reads besides Components, loaded before the components start: the Configuration (`--config`;
 * kubernetes mode: the object in the namespace) and the Resiliency policies (the resources paths; kubernetes mode:
 * the namespace's objects). Parts read them through this holder
 * once it started.
 */
import type { RuntimeConfiguration } from './components/configuration-resource.js';
import { loadStandaloneConfiguration } from './components/configuration-loader.js';
import type { RuntimeConfig } from './config/config.js';
import type { Logger } from './log/logger.js';
import { loadResiliency, type LoadedResiliency } from './resiliency/load-resiliency.js';
import { Resiliency } from './resiliency/resiliency.js';

async function loadResiliencyResources(config: RuntimeConfig, log: Logger): Promise<LoadedResiliency> {
  if (config.mode !== 'kubernetes') return loadResiliency(config.resourcesPaths, config.appId, log);
  const [k8s, loader] = await Promise.all([import('./components/kubernetes-loader.js'), import('./resiliency/kubernetes-resiliency.js')]);
  const lister = new k8s.ApiServerObjectLister(k8s.kubernetesConfig(config.kubeconfig), log, loader.RESILIENCIES);
  // The component loader refuses a missing namespace first.
  return loader.loadKubernetesResiliency(config.appId, config.namespace ?? '', lister, log);
}

async function loadConfiguration(config: RuntimeConfig, log: Logger): Promise<RuntimeConfiguration | undefined> {
  if (config.mode !== 'kubernetes') return loadStandaloneConfiguration(config.config, config.resourcesPaths, log);
  if (config.config === undefined) return undefined;
  // Imported on demand: the Kubernetes client is heavy and standalone svcd never needs it.
  const [k8s, loader] = await Promise.all([import('./components/kubernetes-loader.js'), import('./components/kubernetes-configuration.js')]);
  const getter = new k8s.ApiServerObjectLister(k8s.kubernetesConfig(config.kubeconfig), log, loader.CONFIGURATIONS);
  return loader.loadKubernetesConfiguration(config.config, config.namespace, getter, log);
}

export class RuntimeResources {
  readonly name = 'resources';
  #configuration: RuntimeConfiguration | undefined;
  #resiliency = new Resiliency();

  constructor(
    private readonly config: RuntimeConfig,
    private readonly log: Logger,
  ) {}

  get configuration(): RuntimeConfiguration | undefined {
    return this.#configuration;
  }

  get resiliency(): Resiliency {
    return this.#resiliency;
  }

  async start(): Promise<void> {
    // Read at once; a failure of the Configuration is reported first, as when they were read one after the other.
    const [configuration, resiliency] = await Promise.allSettled([loadConfiguration(this.config, this.log), loadResiliencyResources(this.config, this.log)]);
    if (configuration.status === 'rejected') throw configuration.reason;
    if (resiliency.status === 'rejected') throw resiliency.reason;
    this.#configuration = configuration.value;
    const loaded = resiliency.value;
    const log = this.log.child({ scope: 'resiliency' });
    this.#resiliency = new Resiliency(loaded, { onStateChange: (c) => log.warn({ ...c }, 'circuit breaker changed state') });
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }
}
