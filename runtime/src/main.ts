#!/usr/bin/env node
/**
 * svcd wiring: parse options → validated config → construct parts → start in order → stop in reverse on
 * SIGTERM/SIGINT. This file only wires; every part lives in its own module.
 */
import { mkdirSync } from 'node:fs';
import { startupSnapshot } from 'node:v8';
import { PublicActors } from './actors/public-actors.js';
import { ReplyBudget } from './components/pluggable/reply-budget.js';
import { socketOwnersFrom } from './components/pluggable/socket-folder.js';
import { ActorHost } from './actors/host.js';
import { createHttpApp } from './api/http/app.js';
import { uiRoutes } from './api/http/routes/ui.js';
import { actorRoutes } from './api/http/routes/actors.js';
import { healthRoutes } from './api/http/routes/health.js';
import { metadataRoutes } from './api/http/routes/metadata.js';
import { httpRequestMetrics } from './api/http/request-metrics.js';
import { RuntimeMetadata } from './metadata/runtime-metadata.js';
import { bindingRoutes } from './api/http/routes/bindings.js';
import { jobRoutes } from './api/http/routes/jobs.js';
import { lockRoutes } from './api/http/routes/lock.js';
import { configurationRoutes } from './api/http/routes/configuration.js';
import { publishRoutes } from './api/http/routes/publish.js';
import { InputBindingsHost } from './bindings/input-bindings-host.js';
import { OutputBindingApi } from './bindings/output-api.js';
import { JobsApi } from './jobs/jobs-api.js';
import { JobsHost } from './jobs/jobs-host.js';
import { LockApi } from './lock/lock-api.js';
import { ConfigurationApi } from './configuration/configuration-api.js';
import { AppConfigurationUpdates } from './configuration/app-updates.js';
import { stateRoutes } from './api/http/routes/state.js';
import { secretRoutes } from './api/http/routes/secrets.js';
import { SecretsApi } from './secrets/secrets-api.js';
import { secretRefResolver, type DefaultSecretSource } from './secrets/secret-refs.js';
import { HttpApiServer } from './api/http/server.js';
import { oneStepATurn } from './util/event-loop.js';
import { GrpcApiServer } from './util/grpc-server.js';
import { runtimeApiServices } from './api/grpc/runtime-service.js';
import { buildDeferredServices, loadDurableTaskProto } from '@svc/proto';
import { Readiness } from './util/readiness.js';
import { WorkflowManagementApi } from './workflow/management-api.js';
import { registerBuiltinComponents } from './builtins.js';
import { loadStandaloneComponents } from './components/disk-loader.js';
import { ComponentManager } from './components/manager.js';
import { componentsMetadata } from './components/metadata.js';
import { OutboundHealth } from './components/outbound-health.js';
import { PluggableComponents } from './components/pluggable/pluggable-components.js';
import { ComponentRegistry } from './components/registry.js';
import type { ComponentSpec } from './components/spec.js';
import { parseCommandLine, type RuntimeConfig } from './config/config.js';
import { ensureError, RuntimeError } from './errors/runtime-error.js';
import { createLogger, type Logger } from './log/logger.js';
import { createMetricsRegistry, MetricsServer } from './metrics/metrics.js';
import { Lifecycle, together } from './util/lifecycle.js';
import { listenFor } from './util/listen-failure.js';
import type { AppEvents } from './app/app-events.js';
import { AppHealth, OPEN_GATE } from './app/app-health.js';
import { GrpcAppEvents } from './app/grpc-app-events.js';
import { HttpAppEvents } from './app/http-app-events.js';
import { PubSubMetrics } from './pubsub/metrics.js';
import { PublishApi } from './pubsub/publish-api.js';
import { PubSubHost } from './pubsub/pubsub-host.js';
import { PubSubs } from './pubsub/pubsubs.js';
import { loadSubscriptionResources } from './pubsub/subscription-resources.js';
import type { Subscription } from './pubsub/subscriptions.js';
import { StateApi } from './state/state-api.js';
import { RUNTIME_VERSION } from './version.js';
import { durableTaskService } from './api/grpc/durabletask/service.js';
import { WorkflowHost } from './workflow/host.js';
import { workflowHttpRoutes } from './api/http/routes/workflows.js';
import { workflowPeerHandlers } from './workflow/peer-handlers.js';
import { InternalServer } from './internal/internal-server.js';
import { InvocationHost } from './invocation/invocation-host.js';
import { apiServerReview, KubernetesIdentity } from './invocation/kubernetes-identity.js';
import { GrpcAppInvoker } from './app/grpc-app-invoker.js';
import { GrpcAppProxy } from './app/grpc-app-proxy.js';
import { grpcProxy } from './api/grpc/proxy.js';
import { HttpAppInvoker } from './app/http-app-invoker.js';
import { invocationPath } from './api/http/invoke-path.js';
import { accessCheck } from './invocation/access-check.js';
import { RuntimeResources } from './runtime-resources.js';
import { Tracing } from './tracing/tracing.js';
import { compileTracingOptions } from './tracing/options.js';

/** Where an app is when `--namespace` does not say (standalone). */
const DEFAULT_NAMESPACE = 'default';

/** Imported on demand: the Kubernetes client is heavy (~20 MB of heap) and standalone svcd never needs it. */
async function loadFromKubernetes(config: RuntimeConfig, log: Logger): Promise<ComponentSpec[]> {
  const [k8s, secrets] = await Promise.all([import('./components/kubernetes-loader.js'), import('./secrets/kubernetes-store.js')]);
  const lister = new k8s.ApiServerObjectLister(k8s.kubernetesConfig(config.kubeconfig), log);
  return secrets.withDefaultSecretStore(await k8s.loadKubernetesComponents({ appId: config.appId, namespace: config.namespace, log, lister }));
}

/** Components' secret references without `auth.secretStore`: kubernetes mode reads the namespace's Secrets. */
async function defaultSecretSource(config: RuntimeConfig): Promise<DefaultSecretSource | undefined> {
  if (config.mode !== 'kubernetes') return undefined;
  return (await import('./secrets/kubernetes-store.js')).namespaceSecretSource(config.kubeconfig, config.namespace);
}

/** Declarative subscriptions: the Subscription objects of the namespace, or the Subscription files. */
async function loadSubscriptions(config: RuntimeConfig, log: Logger): Promise<Subscription[]> {
  if (config.mode !== 'kubernetes') return loadSubscriptionResources(config.resourcesPaths, config.appId, log);
  const [k8s, subs] = await Promise.all([import('./components/kubernetes-loader.js'), import('./pubsub/kubernetes-subscriptions.js')]);
  const lister = new k8s.ApiServerObjectLister(k8s.kubernetesConfig(config.kubeconfig), log, subs.SUBSCRIPTIONS);
  // The component loader already refused a missing namespace.
  return subs.loadKubernetesSubscriptions({ appId: config.appId, namespace: config.namespace ?? '', log, lister });
}

/** `/v1.0/metadata` `appConnectionProperties`, as Dapr names them. */
function appConnectionProperties(config: RuntimeConfig): Record<string, unknown> {
  const health = config.appHealth;
  return {
    port: config.appPort,
    protocol: config.appProtocol,
    channelAddress: '127.0.0.1',
    ...(health
      ? { health: { healthCheckPath: config.appProtocol === 'http' ? health.path : '', healthProbeInterval: `${health.intervalMs}ms`, healthProbeTimeout: `${health.timeoutMs}ms`, healthThreshold: health.threshold } }
      : {}),
  };
}

/** Probes the app over its channel (`--enable-app-health-check`). */
function appHealthMonitor(app: AppEvents, opts: NonNullable<RuntimeConfig['appHealth']>, log: Logger): AppHealth {
  return new AppHealth(() => app.healthCheck(opts.path, opts.timeoutMs), { intervalMs: opts.intervalMs, threshold: opts.threshold }, log);
}

/** How long after turning ready svcd builds the gRPC conversions no call has needed yet. */
const DEFERRED_SERVICES_DELAY_MS = 100;

/** Outbound health pings each backing server at most once a second, and waits at most a second for the answer. */
const OUTBOUND_PING_TIMEOUT_MS = 1_000;
/** How long the app may take to answer one job firing before it counts as failed. */
const JOB_DELIVERY_TIMEOUT_MS = 30_000;
const OUTBOUND_HEALTH_CACHE_MS = 1_000;

async function run(config: RuntimeConfig, log: Logger): Promise<() => Promise<void>> {
  mkdirSync(config.dataDir, { recursive: true });
  const metrics = createMetricsRegistry(config.appId, config.metricsPort !== 0);
  const registry = new ComponentRegistry();
  registerBuiltinComponents(registry);
  const pluggable = new PluggableComponents(registry, {
    folder: config.componentsSocketsFolder,
    owners: socketOwnersFrom(config.pluggableTrustedUids, config.mode, process.geteuid?.() ?? 0),
    probeTimeoutMs: config.pluggableProbeTimeoutMs,
    waitTimeoutMs: config.pluggableWaitTimeoutMs,
    pingIntervalMs: config.pluggablePingIntervalMs,
    maxReplyBytes: config.pluggableMaxReplyBytes,
    replyBudget: new ReplyBudget(config.pluggableReplyBudgetBytes),
    log: log.child({ scope: 'pluggable' }),
  });

  const internalServer = new InternalServer(config.internalAddress, config.internalGrpcPort);
  const resources = new RuntimeResources(config, log);
  const components = new ComponentManager(registry, {
    appId: config.appId,
    dataDir: config.dataDir,
    resourcesPaths: config.resourcesPaths,
    kubernetes: { kubeconfig: config.kubeconfig, namespace: config.namespace },
    log,
  }, config.componentInitTimeoutMs);
  const actors: ActorHost = new ActorHost({
    appId: config.appId,
    components,
    log,
    metrics,
    idleTimeoutMs: config.actorIdleTimeoutMs,
    // App-hosted actors are called over HTTP only (as with Dapr): a gRPC app channel hosts none.
    appPort: config.appProtocol === 'http' ? config.appPort : 0,
    appMaxAnswerBytes: config.maxRequestSizeBytes,
    appConfigWaitMs: 30_000,
    drainTimeoutMs: config.shutdownGracePeriodMs,
    placement: {
      internal: { services: internalServer, address: () => internalServer.address },
      leaseTtlMs: config.placementLeaseTtlMs,
      heartbeatIntervalMs: config.placementHeartbeatIntervalMs,
      workers: (): number => workflows.hub?.workerCount ?? 0,
      peerHandlers: workflowPeerHandlers(() => workflows.actorEngine),
    },
  });
  const workflows: WorkflowHost = new WorkflowHost({ appId: config.appId, actorRuntime: () => actors.runtime, replicas: () => actors.replicas, taskTimeoutMs: config.workflowTaskTimeoutMs, traceViewerUrl: config.traceViewerUrl, metrics, log });
  const invocation = new InvocationHost({
    self: { appId: config.appId, namespace: config.namespace ?? DEFAULT_NAMESPACE },
    app: config.appPort === 0 ? undefined : config.appProtocol === 'grpc' ? new GrpcAppInvoker(config.appPort, config.maxRequestSizeBytes) : new HttpAppInvoker(config.appPort),
    grpcApp: config.appPort !== 0 && config.appProtocol === 'grpc' ? new GrpcAppProxy(config.appPort, config.maxRequestSizeBytes) : undefined,
    internal: { routes: internalServer, address: () => internalServer.address },
    mode: config.mode,
    kubeconfig: config.kubeconfig,
    identity: config.mode === 'kubernetes' ? new KubernetesIdentity({ tokenFile: config.invokeTokenFile, review: () => apiServerReview(config.kubeconfig) }) : undefined,
    resolution: () => resources.configuration?.nameResolution,
    actorStore: () => actors.storeSpec,
    invokeToken: config.invokeToken,
    access: accessCheck(() => resources.configuration?.accessControl, log.child({ scope: 'invocation' })),
    resiliency: () => resources.resiliency,
    metrics,
    log,
  });
  const pubsubs = new PubSubs(components, config.appId);
  const pubsubMetrics = new PubSubMetrics(metrics);
  const appLog = log.child({ scope: 'app-channel' });
  const appEvents: AppEvents = config.appProtocol === 'grpc' ? new GrpcAppEvents(config.appPort, appLog) : new HttpAppEvents(config.appPort, appLog, config.maxRequestSizeBytes);
  const appHealth = config.appHealth && config.appPort !== 0 ? appHealthMonitor(appEvents, config.appHealth, appLog) : undefined;
  const jobs = new JobsHost({ appId: config.appId, actorRuntime: () => actors.runtime, app: config.appPort === 0 ? undefined : appEvents, deliveryTimeoutMs: JOB_DELIVERY_TIMEOUT_MS, metrics, log });
  const subscriptions = new PubSubHost({
    appId: config.appId,
    appPort: config.appPort,
    appProtocol: config.appProtocol,
    app: appEvents,
    gate: appHealth ?? OPEN_GATE,
    appWaitMs: 30_000,
    shutdownGraceMs: config.shutdownGracePeriodMs,
    pubsubs,
    declarative: () => loadSubscriptions(config, log),
    metrics: pubsubMetrics,
    log: log.child({ scope: 'pubsub' }),
  });
  const runtimeMetadata = new RuntimeMetadata([
    () => ({ id: config.appId, runtimeVersion: RUNTIME_VERSION }),
    () => componentsMetadata(components),
    () => actors.metadata(),
    () => workflows.metadata(),
    () => invocation.metadata(),
    () => subscriptions.metadata(),
    () => (config.appPort === 0 ? {} : { appConnectionProperties: appConnectionProperties(config) }),
  ]);
  const readiness = new Readiness();
  const stateApi = new StateApi({ appId: config.appId, namespace: config.namespace, stores: components, resiliency: () => resources.resiliency });
  const publishApi = new PublishApi(pubsubs, config.appId, pubsubMetrics, () => resources.resiliency);
  const bindingApi = new OutputBindingApi(components, () => resources.resiliency);
  const secretsApi = new SecretsApi(components, () => resources.configuration?.secretScopes ?? []);
  const lockApi = new LockApi(components, config.appId, () => resources.resiliency);
  const jobsApi = new JobsApi(jobs);
  const configurationApi = new ConfigurationApi(components, () => resources.resiliency);
  const configurationUpdates = config.appPort !== 0 && config.appProtocol === 'http' ? new AppConfigurationUpdates(config.appPort, appLog) : undefined;
  const publicActors = () => new PublicActors(actors.requireRuntime(), () => resources.resiliency);
  const workflowApi = new WorkflowManagementApi(workflows.engine, workflows);
  const outboundHealth = new OutboundHealth(components, { pingTimeoutMs: OUTBOUND_PING_TIMEOUT_MS, cacheMs: OUTBOUND_HEALTH_CACHE_MS });

  const httpApp = createHttpApp({
    apiToken: config.apiToken,
    log,
    observe: httpRequestMetrics(metrics),
    takers: [(o) => invocationPath(invocation.api, o)],
    groups: [
      healthRoutes({ ready: () => readiness.ready, outboundProblems: () => outboundHealth.problems() }),
      stateRoutes(stateApi, config.maxRequestSizeBytes),
      publishRoutes(publishApi, config.maxRequestSizeBytes),
      bindingRoutes(bindingApi, config.maxRequestSizeBytes),
      secretRoutes(secretsApi),
      lockRoutes(lockApi),
      jobRoutes(jobsApi, config.maxRequestSizeBytes),
      configurationRoutes({ api: configurationApi, appId: config.appId, appSubscriber: configurationUpdates && ((store) => configurationUpdates.subscriberFor(store)) }),
      metadataRoutes(runtimeMetadata),
      actorRoutes(publicActors, config.maxRequestSizeBytes),
      workflowHttpRoutes({ api: workflowApi, maxBodyBytes: config.maxRequestSizeBytes }),
      ...(config.uiEnabled ? [uiRoutes()] : []),
    ],
  });
  const httpServer = new HttpApiServer(httpApp, config.listenAddress, config.httpPort);
  const grpcServer = new GrpcApiServer(config.listenAddress, config.grpcPort, { keepalive: { timeMs: config.grpcKeepaliveTimeMs, timeoutMs: config.grpcKeepaliveTimeoutMs } });
  const durableTask = durableTaskService({ engine: workflows.engine, hub: () => workflows.hub, apiToken: config.apiToken, log });
  grpcServer.addService(durableTask.definition, durableTask.implementation);
  const runtimeApi = runtimeApiServices({
    state: stateApi,
    publish: publishApi,
    bindings: bindingApi,
    secrets: secretsApi,
    lock: lockApi,
    jobs: jobsApi,
    configuration: configurationApi,
    metadata: runtimeMetadata,
    actors: publicActors,
    workflows: workflowApi,
    readiness,
    subscriptions,
    invocation: invocation.api,
    maxRequestSizeBytes: config.maxRequestSizeBytes,
    shutdown: () => process.kill(process.pid, 'SIGTERM'),
    apiToken: config.apiToken,
  });
  for (const service of runtimeApi.services) grpcServer.addService(service.definition, service.implementation);
  grpcServer.serveUnknownMethods(grpcProxy(invocation.api, config.apiToken));
  // @grpc/reflection names a service without a proto package with a leading dot.
  grpcServer.addReflection([() => loadDurableTaskProto().packageDefinition(), ...runtimeApi.reflection], ['.TaskHubSidecarService', ...runtimeApi.names]);
  const metricsServer = new MetricsServer(metrics, config.metricsListenAddress, config.metricsPort);
  const ports: Record<string, number> = {};

  const lifecycle = new Lifecycle(log)
    // None of these needs another: their listener, file reads and connections overlap.
    .add(
      together('metrics, resources, components', [
        {
          name: 'metrics',
          start: async () => {
            if (config.metricsPort !== 0) ports.metrics = await listenFor('metrics-port', config.metricsListenAddress, config.metricsPort, () => metricsServer.start());
          },
          stop: () => metricsServer.stop(),
        },
        resources,
        {
          name: 'components',
          start: async () => {
            await pluggable.discover();
            const specs =
              config.mode === 'kubernetes'
                ? await loadFromKubernetes(config, log)
                : await loadStandaloneComponents(config.resourcesPaths, config.appId, log);
            await pluggable.awaitSocketsFor(specs);
            await components.initAll(specs, log, secretRefResolver({ components, byDefault: await defaultSecretSource(config) }));
          },
          stop: () => components.closeAll(log),
        },
      ], log),
    )
    // Once the Configuration is read, before anything serves; stops after everything that serves, so the spans of
    // the last requests are exported.
    .add(new Tracing({ appId: config.appId, metrics, log, options: () => compileTracingOptions(resources.configuration?.tracing, process.env, resources.configuration?.source) }))
    // Stops after the actors drained: calls routed here by other replicas meanwhile still arrive.
    .add({ name: 'internal-grpc-stop', start: () => Promise.resolve(), stop: () => internalServer.stop(config.shutdownGracePeriodMs) })
    .add(actors)
    .add(workflows)
    .add(jobs)
    // After the workflow engine registered its actor type: only then may other replicas route calls here.
    .add({ name: 'app-channel', start: () => Promise.resolve(), stop: () => Promise.resolve(appEvents.close?.()) })
    .add(appHealth ?? { name: 'app-health', start: () => Promise.resolve(), stop: () => Promise.resolve() })
    .add(subscriptions)
    .add(new InputBindingsHost(components, config.appPort, appEvents, appHealth ?? OPEN_GATE, log.child({ scope: 'bindings' })))
    // Opens once every internal service is added (the actors' and workflows' peer methods, invocation).
    .add({ name: 'internal-grpc', start: () => internalServer.start(), stop: () => Promise.resolve() })
    .add(invocation)
    .add({ name: 'actor-placement', start: () => actors.serve(), stop: () => Promise.resolve() })
    .add({ name: 'grpc-api', start: async () => void (ports.grpc = await listenFor('grpc-port', config.listenAddress, config.grpcPort, () => grpcServer.start())), stop: () => grpcServer.stop(config.shutdownGracePeriodMs) })
    // Stops before the gRPC server: workers' GetWorkItems streams end with status OK, so SDK workers reconnect.
    .add({ name: 'workflow-workers', start: () => Promise.resolve(), stop: () => workflows.closeWorkers() })
    // Likewise: SubscribeConfiguration streams end with OK, and no store is watched once components close.
    .add({ name: 'configuration-subscriptions', start: () => Promise.resolve(), stop: () => configurationApi.closeAll() })
    .add({ name: 'http-api', start: async () => void (ports.http = await listenFor('http-port', config.listenAddress, config.httpPort, () => httpServer.start())), stop: () => httpServer.stop(config.shutdownGracePeriodMs) });

  try {
    await lifecycle.startAll();
  } catch (err) {
    await lifecycle.stopAll();
    throw err;
  }
  readiness.set(true);
  // What the start left out, made by the first call that needs it or once the first health probes have had their
  // answer, whichever comes first: the gRPC servers (loading grpc-js), the HTTP API's koa application and the gRPC
  // services' message conversions (servedServiceOnUse). One step a turn of the event loop, so that requests are
  // answered between them.
  setTimeout(() => void oneStepATurn([() => grpcServer.prepare(), () => internalServer.prepare(), httpApp.prepare, buildDeferredServices]), DEFERRED_SERVICES_DELAY_MS).unref();
  log.info(
    {
      version: RUNTIME_VERSION,
      appId: config.appId,
      httpPort: ports.http,
      grpcPort: ports.grpc,
      metricsPort: ports.metrics ?? 'disabled',
      metricsAddress: config.metricsListenAddress,
      components: components.list().map((c) => `${c.spec.name} (${c.spec.type})`),
      // From the process's start (Node's own included): what an orchestrator waits for.
      startupMs: Math.round(performance.now()),
    },
    'svcd started',
  );
  return async () => {
    readiness.set(false);
    await lifecycle.stopAll();
  };
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseCommandLine(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`svcd: ${ensureError(err).message}\n`);
    process.exit(2);
  }
  if (parsed.kind === 'help') {
    process.stdout.write(parsed.text);
    return;
  }
  if (parsed.kind === 'version') {
    process.stdout.write(`${RUNTIME_VERSION}\n`);
    return;
  }
  const config = parsed.config;
  const log = createLogger({ level: config.logLevel, json: config.logAsJson });
  let stop: () => Promise<void>;
  try {
    stop = await run(config, log);
  } catch (err) {
    const message = ensureError(err).message;
    log.fatal({ err: message, ...(err instanceof RuntimeError ? { errorCode: err.code } : {}) }, 'svcd failed to start');
    // Also plainly on stderr, as flag errors are: whoever started svcd by hand sees why at once.
    process.stderr.write(`svcd: ${message}\n`);
    process.exit(1);
  }
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'svcd stopping');
    stop().then(
      () => {
        log.info('svcd stopped');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err: ensureError(err).message }, 'svcd stopped with errors');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

// Built into a V8 startup snapshot (scripts/make-snapshot.cjs), svcd's modules are evaluated when the snapshot is
// made, and main runs each time a process starts from it.
if (startupSnapshot.isBuildingSnapshot()) startupSnapshot.setDeserializeMainFunction(() => void main());
else void main();
