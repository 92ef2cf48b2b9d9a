/**
 * The @dapr/dapr SDK, unchanged, on both ends of service invocation: a DaprClient over HTTP and over gRPC
 * (InvokeService) calling DaprServer apps that listen over HTTP and over gRPC (OnInvoke), each behind its own svcd.
 */
import { CommunicationProtocolEnum, DaprClient, HttpMethod, LogLevel } from '@dapr/dapr';
import { SvcdProcess, tempFolder } from '@svc/runtime/test-support';
import { expect } from 'chai';
import path from 'node:path';
import { startDaprSdkApp, type DaprSdkApp } from '../support/dapr-sdk-app.js';
import { invocationConfiguration } from '../support/echo-app.js';

describe('Dapr JS SDK service invocation through svcd (HTTP and gRPC on both ends)', function () {
  this.timeout(120_000);
  let resources: Record<string, string>;
  const targets: Record<'http' | 'grpc', DaprSdkApp | undefined> = { http: undefined, grpc: undefined };
  let caller: SvcdProcess;
  const clients: Record<'http' | 'grpc', DaprClient | undefined> = { http: undefined, grpc: undefined };

  before(async () => {
    resources = { 'configuration.yaml': invocationConfiguration(path.join(tempFolder('registry-'), 'registry.db')) };
    for (const protocol of ['http', 'grpc'] as const) {
      targets[protocol] = await startDaprSdkApp(
        async (server) => {
          await server.invoker.listen('greet', async (data) => Promise.resolve({ greeting: `hello ${(JSON.parse(data.body ?? '{}') as { name?: string }).name}`, over: protocol }), { method: HttpMethod.POST });
          await server.invoker.listen('ping', async () => Promise.resolve({ pong: protocol }), { method: HttpMethod.GET });
        },
        { appId: `sdk-${protocol}-target`, resources },
        protocol,
      );
    }
    caller = await SvcdProcess.start({ appId: 'sdk-caller', resources });
    const logger = { level: LogLevel.Error };
    clients.http = new DaprClient({ daprHost: '127.0.0.1', daprPort: String(caller.ports.http), communicationProtocol: CommunicationProtocolEnum.HTTP, logger });
    clients.grpc = new DaprClient({ daprHost: '127.0.0.1', daprPort: String(caller.ports.grpc), communicationProtocol: CommunicationProtocolEnum.GRPC, logger });
  });
  after(async () => {
    await Promise.all([clients.http?.stop(), clients.grpc?.stop()]);
    await caller?.dispose();
    await Promise.all([targets.http?.stop(), targets.grpc?.stop()]);
  });

  for (const client of ['http', 'grpc'] as const) {
    for (const target of ['http', 'grpc'] as const) {
      it(`DaprClient over ${client} → svcd → svcd → DaprServer over ${target}: POST with a JSON body, GET`, async () => {
        const greeted = await clients[client]!.invoker.invoke(`sdk-${target}-target`, 'greet', HttpMethod.POST, { name: 'ada' });
        expect(greeted).to.deep.equal({ greeting: 'hello ada', over: target });
        const pong = await clients[client]!.invoker.invoke(`sdk-${target}-target`, 'ping', HttpMethod.GET);
        expect(pong).to.deep.equal({ pong: target });
      });
    }
  }

  it('reports an app id nobody serves as an error through both SDK clients', async () => {
    const overHttp = await clients.http!.invoker.invoke('nobody', 'greet', HttpMethod.POST, {}).then(() => 'no error', (e: unknown) => String(e));
    expect(overHttp).to.match(/ERR_DIRECT_INVOKE_APP_NOT_FOUND|app nobody not found/);
    const overGrpc = await clients.grpc!.invoker.invoke('nobody', 'greet', HttpMethod.POST, {}).then(() => 'no error', (e: unknown) => String(e));
    expect(overGrpc).to.match(/app nobody not found/);
  });
});
