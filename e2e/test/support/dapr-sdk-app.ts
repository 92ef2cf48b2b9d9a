import { CommunicationProtocolEnum, DaprClient, DaprServer, LogLevel } from '@dapr/dapr';
import { SvcdProcess, freePort, type SvcdOptions } from '@svc/runtime/test-support';

export interface DaprSdkApp {
  readonly server: DaprServer;
  readonly client: DaprClient;
  readonly svcd: SvcdProcess;
  stop(): Promise<void>;
}

/**
 * An app written with the @dapr/dapr SDK over HTTP and its svcd, started as a user would: the DaprServer
 * registers its handlers (`register`), starts listening and waits for the sidecar, which starts next and reads
 * the app's subscriptions and bindings.
 */
export async function startDaprSdkApp(register: (server: DaprServer) => Promise<void>, svcdOptions: SvcdOptions): Promise<DaprSdkApp> {
  const ports = { http: await freePort(), grpc: await freePort(), metrics: await freePort() };
  const appPort = await freePort();
  const logger = { level: LogLevel.Error };
  const server = new DaprServer({
    serverHost: '127.0.0.1',
    serverPort: String(appPort),
    communicationProtocol: CommunicationProtocolEnum.HTTP,
    clientOptions: { daprHost: '127.0.0.1', daprPort: String(ports.http), logger },
    logger,
  });
  await register(server);
  const starting = server.start();
  const svcd = await SvcdProcess.start({ ...svcdOptions, ports, args: [...(svcdOptions.args ?? []), '--app-port', String(appPort)] });
  await starting;
  const client = new DaprClient({ daprHost: '127.0.0.1', daprPort: String(ports.http), communicationProtocol: CommunicationProtocolEnum.HTTP, logger });
  return {
    server,
    client,
    svcd,
    stop: async () => {
      await server.stop().catch(() => undefined);
      await svcd.dispose();
    },
  };
}
