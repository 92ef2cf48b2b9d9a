import { CommunicationProtocolEnum, DaprClient, DaprServer, LogLevel } from '@dapr/dapr';
import { SvcdProcess, freePort, type SvcdOptions } from '@svc/runtime/test-support';

export interface DaprSdkApp {
  readonly server: DaprServer;
  readonly client: DaprClient;
  readonly svcd: SvcdProcess;
  stop(): Promise<void>;
}

/**
 * An app written with the @dapr/dapr SDK and its svcd, started as a user would: the DaprServer registers its
 * handlers (`register`), starts listening and waits for the sidecar, which starts next and reads the app's
 * subscriptions and bindings. `protocol` is the SDK's for both its server and its client (`grpc`: svcd runs
 * with `--app-protocol grpc` and the client talks to svcd's gRPC port).
 */
export async function startDaprSdkApp(register: (server: DaprServer) => Promise<void>, svcdOptions: SvcdOptions, protocol: 'http' | 'grpc' = 'http'): Promise<DaprSdkApp> {
  const ports = { http: await freePort(), grpc: await freePort(), metrics: await freePort() };
  const appPort = await freePort();
  const logger = { level: LogLevel.Error };
  const communicationProtocol = protocol === 'grpc' ? CommunicationProtocolEnum.GRPC : CommunicationProtocolEnum.HTTP;
  const daprPort = String(protocol === 'grpc' ? ports.grpc : ports.http);
  const server = new DaprServer({
    serverHost: '127.0.0.1',
    serverPort: String(appPort),
    communicationProtocol,
    clientOptions: { daprHost: '127.0.0.1', daprPort, communicationProtocol, logger },
    logger,
  });
  await register(server);
  const starting = server.start();
  const svcd = await SvcdProcess.start({ ...svcdOptions, ports, args: [...(svcdOptions.args ?? []), '--app-port', String(appPort), '--app-protocol', protocol] });
  await starting;
  const client = new DaprClient({ daprHost: '127.0.0.1', daprPort, communicationProtocol, logger });
  return {
    server,
    client,
    svcd,
    // svcd first: its calls to the app end with it, so the app's server has nothing left to wait for.
    stop: async () => {
      await svcd.dispose();
      await server.stop().catch(() => undefined);
    },
  };
}
