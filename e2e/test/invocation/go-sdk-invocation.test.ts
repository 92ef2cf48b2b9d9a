/**
 * The Dapr Go SDK client, unchanged, invoking another app through svcd (e2e/go/invoke-client): InvokeMethod and
 * InvokeMethodWithContent over the gRPC API to a plain HTTP app behind another svcd, an app id nobody serves, and
 * grpc-go calling another Go app's gRPC service (the standard health service) by gRPC proxying.
 */
import { freePort, SvcdProcess, tempFolder } from '@svc/runtime/test-support';
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import path from 'node:path';
import { EchoApp, invocationConfiguration, type SeenRequest } from '../support/echo-app.js';
import { buildGoProgram, runGoProgram, type ScenarioLine } from '../support/go-program.js';

describe('Dapr Go SDK service invocation through svcd', function () {
  this.timeout(300_000);
  const app = new EchoApp();
  let caller: SvcdProcess;
  let target: SvcdProcess;
  let grpcTarget: SvcdProcess;
  let grpcApp: ChildProcess;
  let binary: string;

  before(async () => {
    binary = await buildGoProgram('invoke-client');
    await app.start();
    const resources = { 'configuration.yaml': invocationConfiguration(path.join(tempFolder('registry-'), 'registry.db')) };
    target = await SvcdProcess.start({ appId: 'go-target', resources, args: ['--app-port', String(app.port)] });
    caller = await SvcdProcess.start({ appId: 'go-caller', resources });
    const grpcPort = await freePort();
    grpcApp = spawn(binary, ['-serve-health', String(grpcPort)], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      grpcApp.stdout!.once('data', () => resolve());
      grpcApp.once('exit', (code) => reject(new Error(`the Go gRPC app exited (${code})`)));
    });
    grpcTarget = await SvcdProcess.start({ appId: 'go-grpc-target', resources, args: ['--app-port', String(grpcPort), '--app-protocol', 'grpc'] });
  });
  after(async () => {
    await Promise.all([caller?.dispose(), target?.dispose(), grpcTarget?.dispose()]);
    grpcApp?.kill();
    await app.stop();
  });

  it('InvokeMethod (GET) and InvokeMethodWithContent (POST with JSON) reach the app; an unknown app is NotFound; a gRPC service of another app is reached by proxying', async () => {
    const run = await runGoProgram(binary, { grpcPort: caller.ports.grpc, args: ['-target', 'go-target', '-proxy-app', 'go-grpc-target'], killAfterMs: 60_000 });
    const step = (name: string): ScenarioLine => {
      const line = run.lines.find((l) => l.step === name);
      expect(line, `${name} in ${JSON.stringify(run.lines)} / ${run.stderr}`).to.not.equal(undefined);
      expect(line!.error, name).to.equal(undefined);
      return line!;
    };
    const get = JSON.parse(step('invoke-get').observed!.body as string) as SeenRequest;
    expect(get.method).to.equal('GET');
    expect(get.url).to.equal('/ping');
    expect(get.headers['dapr-caller-app-id']).to.equal('go-caller');
    const post = JSON.parse(step('invoke-post').observed!.body as string) as SeenRequest;
    expect(post.method).to.equal('POST');
    expect(post.url).to.equal('/greet');
    expect(post.text).to.equal('{"name":"go"}');
    expect(post.headers['content-type']).to.equal('application/json');
    expect(step('invoke-unknown').observed!.status).to.match(/^NotFound: app nobody-serves-this not found/);
    // grpc-go's health client through the caller's svcd, proxied to the Go app's health service.
    expect(step('proxy-health').observed!.status).to.equal('SERVING');
    expect(run.exit).to.equal('code 0');
  });
});
