import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { actorStore, freePort, SvcdProcess, type ActorStore } from '@svc/runtime/test-support';
import './support/quiet-sdk.js';

const APP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../examples/workflow-app/dist/src');

/** The README's commands of examples/workflow-app, against a real svcd (its own ports instead of 3500/50001). */
describe('examples/workflow-app (README commands)', function () {
  this.timeout(60_000);
  let store: ActorStore;
  let svcd: SvcdProcess;
  let worker: ChildProcess;
  let workerOutput = '';
  let client: TaskHubGrpcClient;

  before(async () => {
    store = actorStore('sqlite', 'wf-e2e');
    svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources });
    worker = spawn(process.execPath, [path.join(APP, 'worker.js')], { env: { ...process.env, SVC_GRPC_ADDRESS: svcd.grpcAddress }, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      worker.stdout!.on('data', (d: Buffer) => {
        workerOutput += d.toString();
        if (workerOutput.includes('Successfully connected')) resolve();
      });
      worker.stderr!.on('data', (d: Buffer) => (workerOutput += d.toString()));
      worker.once('exit', () => reject(new Error(`example worker exited:\n${workerOutput}`)));
    });
    client = new TaskHubGrpcClient(svcd.grpcAddress);
  });

  after(async () => {
    worker?.kill('SIGTERM');
    await client?.stop();
    await svcd?.dispose();
    await store?.cleanup();
  });

  const http = (method: string, p: string, body?: string) =>
    svcd.request(method, p, body, body === undefined ? {} : { 'content-type': 'application/json' });
  const get = async (id: string) => (await (await http('GET', `/v1.0/workflows/svc/${id}`)).json()) as { runtimeStatus: string; properties: Record<string, string> };

  it('3a: start over HTTP, wait for approval, approve, complete with one payment retry, purge', async () => {
    const start = await http('POST', '/v1.0/workflows/svc/order/start?instanceID=order-1', '{"item":"paperclips","quantity":30,"customer":"ada","paymentFailures":1}');
    expect(start.status).to.equal(202);
    expect(await start.json()).to.deep.equal({ instanceID: 'order-1' });

    // Raised at once: an event raised before the workflow waits for it is kept until it does.
    const raise = await http('POST', '/v1.0/workflows/svc/order-1/raiseEvent/approval', '{"approved":true,"by":"grace"}');
    expect(raise.status).to.equal(202);
    await client.waitForOrchestrationCompletion('order-1', false, 30);
    const done = await get('order-1');
    expect(done.runtimeStatus).to.equal('COMPLETED');
    expect(done.properties['svc.workflow.custom_status']).to.equal('done');
    expect(JSON.parse(done.properties['svc.workflow.output']!)).to.deep.equal({
      status: 'completed', orderId: 'order-1', total: 750, approvedBy: 'grace', paymentAttempts: 2, trackingNumber: 'TRK-order-1',
    });
    expect((await get('order-1-shipping')).runtimeStatus).to.equal('COMPLETED');
    expect((await http('POST', '/v1.0/workflows/svc/order-1/purge')).status).to.equal(202);
    expect((await http('GET', '/v1.0/workflows/svc/order-1')).status).to.equal(404);
  });

  it('a rejected approval releases the stock and completes as rejected', async () => {
    await http('POST', '/v1.0/workflows/svc/order/start?instanceID=order-2', '{"item":"staples","quantity":40,"customer":"bob"}');
    await client.waitForOrchestrationStart('order-2', false, 30);
    await http('POST', '/v1.0/workflows/svc/order-2/raiseEvent/approval', '{"approved":false,"by":"bob"}');
    await client.waitForOrchestrationCompletion('order-2', false, 30);
    const done = await get('order-2');
    expect(JSON.parse(done.properties['svc.workflow.output']!)).to.deep.equal({ status: 'rejected', orderId: 'order-2', reason: 'rejected by bob' });
    expect(done.properties['svc.workflow.custom_status']).to.equal('released');
  });

  it('a small order needs no approval; exhausted payment retries fail the workflow', async () => {
    await http('POST', '/v1.0/workflows/svc/order/start?instanceID=order-3', '{"item":"pins","quantity":2,"customer":"cy"}');
    await client.waitForOrchestrationCompletion('order-3', false, 30);
    expect(JSON.parse((await get('order-3')).properties['svc.workflow.output']!)).to.include({ status: 'completed', total: 50, paymentAttempts: 1 });

    await http('POST', '/v1.0/workflows/svc/order/start?instanceID=order-4', '{"item":"pins","quantity":2,"customer":"cy","paymentFailures":4}');
    await client.waitForOrchestrationCompletion('order-4', false, 60);
    const failed = await get('order-4');
    expect(failed.runtimeStatus).to.equal('FAILED');
    expect(failed.properties['svc.workflow.failure.error_message']).to.include('payment provider unavailable (attempt 4)');
  });

  it('3b: npm run order places, approves and prints a completed order', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(APP, 'place-order.js'), '30', '1'], { env: { ...process.env, SVC_GRPC_ADDRESS: svcd.grpcAddress } });
    const line = stdout.split('\n').find((l) => l.startsWith('order '));
    expect(line, stdout).to.match(/^order [0-9a-f-]{36}: /);
    const result = JSON.parse(line!.replace(/^order [0-9a-f-]{36}: /, '')) as { status: number; output: Record<string, unknown> };
    expect(result.status).to.equal(1);
    expect(result.output).to.include({ status: 'completed', total: 750, approvedBy: 'grace', paymentAttempts: 2 });
  });
});

/**
 * In a pod the worker container starts beside svcd, not after it (found in the local cluster: the worker crashed
 * on its first failed Hello and the pod restarted it until svcd was up). The worker must wait for svcd instead.
 */
describe('examples/workflow-app worker started before svcd', function () {
  this.timeout(60_000);
  let store: ActorStore | undefined;
  let svcd: SvcdProcess | undefined;
  let worker: ChildProcess | undefined;

  after(async () => {
    worker?.kill('SIGTERM');
    await svcd?.dispose();
    await store?.cleanup();
  });

  it('waits for svcd, then runs an order to completion', async () => {
    const ports = { http: await freePort(), grpc: await freePort(), metrics: await freePort() };
    let output = '';
    let exitCode: number | null | undefined;
    worker = spawn(process.execPath, [path.join(APP, 'worker.js')], { env: { ...process.env, SVC_GRPC_ADDRESS: `127.0.0.1:${ports.grpc}` }, stdio: ['ignore', 'pipe', 'pipe'] });
    worker.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    worker.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    worker.once('exit', (code) => (exitCode = code));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(exitCode, `the worker exited before svcd started:\n${output}`).to.equal(undefined);

    store = actorStore('sqlite', 'wf-late');
    svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, ports });
    const client = new TaskHubGrpcClient(svcd.grpcAddress);
    try {
      const id = await client.scheduleNewOrchestration('order', { item: 'pins', quantity: 2, customer: 'cy' });
      const done = await client.waitForOrchestrationCompletion(id, true, 30);
      expect(done?.runtimeStatus, output).to.equal(1); // COMPLETED
    } finally {
      await client.stop();
    }
  });
});
