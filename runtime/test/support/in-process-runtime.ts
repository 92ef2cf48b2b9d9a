/**
 * The workflow engine as svcd wires it (a SQLite actor store, the actor runtime, the workflow host, the Durable
 * Task gRPC service and the HTTP API's workflow routes, metadata and web UI on real ports), in this test process: what a test needs that must see svcd's own
 * in-process state, such as the spans it records through the global OpenTelemetry API. Stopping it and starting
 * another on the same data folder is a restart of svcd (the store's file is all that survives).
 */
import { Registry } from 'prom-client';
import { ActorHost } from '../../src/actors/host.js';
import { durableTaskService } from '../../src/api/grpc/durabletask/service.js';
import { registerBuiltinComponents } from '../../src/builtins.js';
import { ComponentManager } from '../../src/components/manager.js';
import { ComponentRegistry } from '../../src/components/registry.js';
import { parseComponentSpec } from '../../src/components/spec.js';
import { createLogger } from '../../src/log/logger.js';
import { createHttpApp } from '../../src/api/http/app.js';
import { metadataRoutes } from '../../src/api/http/routes/metadata.js';
import { uiRoutes } from '../../src/api/http/routes/ui.js';
import { workflowHttpRoutes } from '../../src/api/http/routes/workflows.js';
import { HttpApiServer } from '../../src/api/http/server.js';
import { RuntimeMetadata } from '../../src/metadata/runtime-metadata.js';
import { GrpcApiServer } from '../../src/util/grpc-server.js';
import { WorkflowHost } from '../../src/workflow/host.js';
import type { WorkflowEngine } from '../../src/workflow/engine.js';
import { WorkflowManagementApi } from '../../src/workflow/management-api.js';

const log = createLogger({ level: 'error', json: true });

export interface InProcessOptions {
  /** `--trace-viewer-url`, as the workflow host shows it in the metadata. */
  readonly traceViewerUrl?: string;
}

export class InProcessRuntime {
  private constructor(
    private readonly components: ComponentManager,
    private readonly actors: ActorHost,
    private readonly workflows: WorkflowHost,
    private readonly grpc: GrpcApiServer,
    private readonly http: HttpApiServer,
    readonly grpcAddress: string,
    /** The HTTP API with the workflow routes, `/v1.0/metadata` and the web UI. */
    readonly httpUrl: string,
  ) {}

  get engine(): WorkflowEngine {
    return this.workflows.engine;
  }

  /** Started in the order svcd starts these parts; its SQLite file lives in `dataDir`. */
  static async start(dataDir: string, opts: InProcessOptions = {}): Promise<InProcessRuntime> {
    const registry = new ComponentRegistry();
    registerBuiltinComponents(registry);
    const components = new ComponentManager(registry, { appId: 'traced', dataDir, resourcesPaths: [], log }, 10_000);
    const spec = parseComponentSpec(
      { apiVersion: 'svc.io/v1alpha1', kind: 'Component', metadata: { name: 'wfstore' }, spec: { type: 'state.sqlite', version: 'v1', metadata: [{ name: 'actorStateStore', value: 'true' }] } },
      'wfstore.yaml',
    );
    await components.initAll([spec], log);
    const actors = new ActorHost({
      appId: 'traced',
      components,
      log,
      metrics: new Registry(),
      idleTimeoutMs: 60_000,
      appPort: 0,
      appMaxAnswerBytes: 4 << 20,
      appConfigWaitMs: 0,
      drainTimeoutMs: 2_000,
      placement: { internal: { services: { addService: () => undefined }, address: () => '127.0.0.1:1' }, leaseTtlMs: 3_000, heartbeatIntervalMs: 1_000, workers: () => workflows.hub?.workerCount ?? 0, peerHandlers: {} },
    });
    const workflows: WorkflowHost = new WorkflowHost({ appId: 'traced', actorRuntime: () => actors.runtime, replicas: () => actors.replicas, metrics: new Registry(), log, traceViewerUrl: opts.traceViewerUrl });
    const grpc = new GrpcApiServer('127.0.0.1', 0);
    const service = durableTaskService({ engine: workflows.engine, hub: () => workflows.hub, log });
    grpc.addService(service.definition, service.implementation);
    await actors.start();
    await workflows.start();
    await actors.serve();
    const metadata = new RuntimeMetadata([() => ({ id: 'traced' }), () => workflows.metadata()]);
    const groups = [metadataRoutes(metadata), uiRoutes(), workflowHttpRoutes({ api: new WorkflowManagementApi(workflows.engine, workflows), maxBodyBytes: 4 << 20 })];
    const http = new HttpApiServer(createHttpApp({ apiToken: undefined, log, groups }), '127.0.0.1', 0);
    const port = await grpc.start();
    const httpPort = await http.start();
    return new InProcessRuntime(components, actors, workflows, grpc, http, `127.0.0.1:${port}`, `http://127.0.0.1:${httpPort}`);
  }

  /** svcd's shutdown order: workers' streams end, the gRPC server, the engine, the actors, the store. */
  async stop(): Promise<void> {
    await this.http.stop(1_000);
    await this.workflows.closeWorkers();
    await this.grpc.stop(1_000);
    await this.workflows.stop();
    await this.actors.stop();
    await this.components.closeAll(log);
  }
}
