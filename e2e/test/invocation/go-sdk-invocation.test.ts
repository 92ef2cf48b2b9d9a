/**
 * The Dapr Go SDK client, unchanged, invoking another app through svcd (e2e/go/invoke-client): InvokeMethod and
 * InvokeMethodWithContent over the gRPC API to a plain HTTP app behind another svcd, and an app id nobody serves.
 */
import { SvcdProcess, tempFolder } from '@svc/runtime/test-support';
import { expect } from 'chai';
import path from 'node:path';
import { EchoApp, invocationConfiguration, type SeenRequest } from '../support/echo-app.js';
import { buildGoProgram, runGoProgram, type ScenarioLine } from '../support/go-program.js';

describe('Dapr Go SDK service invocation through svcd', function () {
  this.timeout(300_000);
  const app = new EchoApp();
  let caller: SvcdProcess;
  let target: SvcdProcess;
  let binary: string;

  before(async () => {
    binary = await buildGoProgram('invoke-client');
    await app.start();
    const resources = { 'configuration.yaml': invocationConfiguration(path.join(tempFolder('registry-'), 'registry.db')) };
    target = await SvcdProcess.start({ appId: 'go-target', resources, args: ['--app-port', String(app.port)] });
    caller = await SvcdProcess.start({ appId: 'go-caller', resources });
  });
  after(async () => {
    await Promise.all([caller?.dispose(), target?.dispose()]);
    await app.stop();
  });

  it('InvokeMethod (GET) and InvokeMethodWithContent (POST with JSON) reach the app; an unknown app is NotFound', async () => {
    const run = await runGoProgram(binary, { grpcPort: caller.ports.grpc, args: ['-target', 'go-target'], killAfterMs: 60_000 });
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
    expect(run.exit).to.equal('code 0');
  });
});
