import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { actorStore, eventually, freePort, SvcdProcess, tempFolder, type ActorStore } from '@svc/runtime/test-support';
import { invocationConfiguration } from '../support/echo-app.js';
import './support/quiet-sdk.js';

const APP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../examples/workflow-app/dist/src');

/** A node process of the example, its output kept; resolves once `ready` appears in it. */
async function startExample(script: string, env: Record<string, string>, ready: string): Promise<{ child: ChildProcess; output: () => string }> {
  let output = '';
  const child = spawn(process.execPath, [path.join(APP, script)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  await eventually(`${script} ready`, () => Promise.resolve(output.includes(ready)));
  return { child, output: () => output };
}

/** The README's "A second service": the order workflow's activity books the pick-up with the courier service through the sidecars. */
describe('examples/workflow-app with the courier service (README "A second service")', function () {
  this.timeout(60_000);
  let store: ActorStore;
  let orders: SvcdProcess;
  let courierSvcd: SvcdProcess;
  let courier: { child: ChildProcess; output: () => string };
  let worker: { child: ChildProcess; output: () => string };
  let client: TaskHubGrpcClient;

  before(async () => {
    const configuration = { 'configuration.yaml': invocationConfiguration(path.join(tempFolder('registry-'), 'registry.db')) };
    store = actorStore('sqlite', 'wf-courier');
    const courierPort = await freePort();
    courier = await startExample('courier-service.js', { COURIER_PORT: String(courierPort) }, 'courier listening');
    courierSvcd = await SvcdProcess.start({ appId: 'courier', resources: configuration, args: ['--app-port', String(courierPort)] });
    orders = await SvcdProcess.start({ appId: store.appId, resources: { ...store.resources, ...configuration } });
    worker = await startExample('worker.js', { SVC_GRPC_ADDRESS: orders.grpcAddress, SVC_HTTP_PORT: String(orders.ports.http), COURIER_APP_ID: 'courier' }, 'Successfully connected');
    client = new TaskHubGrpcClient(orders.grpcAddress);
  });
  after(async () => {
    worker?.child.kill('SIGTERM');
    courier?.child.kill('SIGTERM');
    await client?.stop();
    await Promise.all([orders?.dispose(), courierSvcd?.dispose()]);
    await store?.cleanup();
  });

  it("an order's tracking number comes from the courier, which knows the calling app", async () => {
    const start = await orders.request('POST', '/v1.0/workflows/svc/order/start?instanceID=order-c1', '{"item":"pins","quantity":2,"customer":"cy"}', { 'content-type': 'application/json' });
    expect(start.status).to.equal(202);
    await client.waitForOrchestrationCompletion('order-c1', false, 30);
    const done = (await (await orders.request('GET', '/v1.0/workflows/svc/order-c1')).json()) as { runtimeStatus: string; properties: Record<string, string> };
    expect(done.runtimeStatus, JSON.stringify(done.properties)).to.equal('COMPLETED');
    expect(JSON.parse(done.properties['svc.workflow.output']!)).to.include({ trackingNumber: 'CR-order-c1' });
    expect(courier.output()).to.contain(`pick-up of 0.4 kg for order-c1, booked by app ${store.appId}: CR-order-c1`);
  });
});
