/**
 * svcd against a pluggable state store written in Go (grpc-go serving Dapr's generated component services,
 * e2e/go/pluggable-store): svcd's unary calls meet Go's HTTP/2 server, its HPACK, flow
 * control (values of several MiB both ways) and graceful shutdown, as they do in a Go component SDK deployment.
 */
import { SvcdProcess, componentYaml, eventually, tempSocketsFolder } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { buildGoProgram } from '../support/go-program.js';

/** Starts the Go component on `<folder>/gostore.sock`; resolves once it listens. */
async function startGoStore(binary: string, folder: string): Promise<ChildProcess> {
  const child = spawn(binary, [path.join(folder, 'gostore.sock')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  expect(line.toString()).to.include('listening on');
  return child;
}

async function stopGoStore(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

describe('svcd with a pluggable state store written in Go (grpc-go, Dapr component protos)', function () {
  this.timeout(180_000);
  let binary: string;
  let folder: string;
  let store: ChildProcess | undefined;
  let svcd: SvcdProcess;
  const json = async (res: Response) => (await res.json()) as { errorCode?: string; message?: string };

  before(async () => {
    binary = await buildGoProgram('pluggable-store');
    folder = tempSocketsFolder();
    store = await startGoStore(binary, folder);
    svcd = await SvcdProcess.start({ socketsFolder: folder, args: ['--pluggable-ping-interval', '200ms'], resources: { 'orders.yaml': componentYaml('orders', 'state.gostore') } });
  });
  after(async () => {
    await svcd?.stop();
    await stopGoStore(store, 'SIGKILL');
  });

  it('lists it as pluggable with the features it reports', async () => {
    const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { components: { name: string; type: string; capabilities?: string[] }[] };
    const orders = meta.components.find((c) => c.name === 'orders');
    expect(orders?.type).to.equal('state.gostore');
    expect(orders?.capabilities).to.include.members(['ETAG', 'TRANSACTIONAL']);
  });

  it('saves, reads with an ETag, reads in bulk, runs a transaction and deletes', async () => {
    expect((await svcd.request('POST', '/v1.0/state/orders', [{ key: 'a', value: { qty: 1 } }, { key: 'b', value: 'two' }])).status).to.equal(204);
    const got = await svcd.request('GET', '/v1.0/state/orders/a');
    expect([got.status, got.headers.get('etag'), await got.json()]).to.deep.equal([200, '1', { qty: 1 }]);
    const bulk = (await (await svcd.request('POST', '/v1.0/state/orders/bulk', { keys: ['a', 'b', 'none'] })).json()) as { key: string; data?: unknown }[];
    expect(bulk.map((i) => [i.key, i.data])).to.have.deep.members([
      ['a', { qty: 1 }],
      ['b', 'two'],
      ['none', undefined],
    ]);
    const tx = await svcd.request('POST', '/v1.0/state/orders/transaction', {
      operations: [
        { operation: 'upsert', request: { key: 'c', value: 3 } },
        { operation: 'delete', request: { key: 'a' } },
      ],
    });
    expect(tx.status).to.equal(204);
    expect((await svcd.request('GET', '/v1.0/state/orders/a')).status).to.equal(204);
    expect(await (await svcd.request('GET', '/v1.0/state/orders/c')).json()).to.equal(3);
    expect((await svcd.request('DELETE', '/v1.0/state/orders/c')).status).to.equal(204);
    expect((await svcd.request('GET', '/v1.0/state/orders/c')).status).to.equal(204);
  });

  it("maps the component's ETag mismatch (a BadRequest detail in Go's trailers) to 409, keeping the value", async () => {
    await svcd.request('POST', '/v1.0/state/orders', [{ key: 'e', value: 'first' }]);
    const stale = await svcd.request('POST', '/v1.0/state/orders', [{ key: 'e', value: 'second', etag: '7' }]);
    expect([stale.status, (await json(stale)).errorCode]).to.deep.equal([409, 'ERR_STATE_ETAG_MISMATCH']);
    const failedTx = await svcd.request('POST', '/v1.0/state/orders/transaction', {
      operations: [
        { operation: 'upsert', request: { key: 'f', value: 'new' } },
        { operation: 'upsert', request: { key: 'e', value: 'third', etag: '7' } },
      ],
    });
    expect(failedTx.status).to.equal(409);
    expect(await (await svcd.request('GET', '/v1.0/state/orders/e')).json()).to.equal('first');
    expect((await svcd.request('GET', '/v1.0/state/orders/f')).status, 'nothing of the failed transaction').to.equal(204);
  });

  it('turns any other error of the component into a 500 naming it and the message', async () => {
    const res = await svcd.request('GET', '/v1.0/state/orders/fail-disk%20on%20fire');
    const body = await json(res);
    expect([res.status, body.errorCode]).to.deep.equal([500, 'ERR_STATE_GET']);
    expect(body.message).to.include('orders').and.include('disk on fire');
  });

  it('moves values of several MiB both ways and answers 200 calls at once, each its own value', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    expect((await svcd.request('POST', '/v1.0/state/orders', [{ key: 'big', value: big }])).status).to.equal(204);
    expect(await (await svcd.request('GET', '/v1.0/state/orders/big')).json()).to.equal(big);
    await svcd.request('POST', '/v1.0/state/orders', Array.from({ length: 200 }, (_, i) => ({ key: `k${i}`, value: i })));
    const values = await Promise.all(Array.from({ length: 200 }, async (_, i) => (await svcd.request('GET', `/v1.0/state/orders/k${i}`)).json()));
    expect(values).to.deep.equal(Array.from({ length: 200 }, (_, i) => i));
  });

  it('fails fast while the component is gone (stopped gracefully, then killed), and initialises it again when it is back', async () => {
    await svcd.request('POST', '/v1.0/state/orders', [{ key: 'before', value: 1 }]);
    await stopGoStore(store, 'SIGTERM');
    const res = await svcd.request('GET', '/v1.0/state/orders/before');
    const body = await json(res);
    expect([res.status, body.errorCode]).to.deep.equal([500, 'ERR_COMPONENT_UNAVAILABLE']);
    expect(body.message).to.include('orders').and.include('gostore.sock');

    store = await startGoStore(binary, folder);
    await eventually('state calls succeed again', async () => (await svcd.request('GET', '/v1.0/state/orders/before')).status !== 500);
    // A new process: svcd sent Init again (the old data is gone) before using it.
    expect((await svcd.request('GET', '/v1.0/state/orders/before')).status).to.equal(204);
    await svcd.request('POST', '/v1.0/state/orders', [{ key: 'after', value: 2 }]);

    await stopGoStore(store, 'SIGKILL');
    expect((await json(await svcd.request('GET', '/v1.0/state/orders/after'))).errorCode).to.equal('ERR_COMPONENT_UNAVAILABLE');
    store = await startGoStore(binary, folder);
    await eventually('state calls succeed after a kill', async () => (await svcd.request('GET', '/v1.0/state/orders/after')).status !== 500);
    await eventually('outbound health is green again', async () => (await svcd.request('GET', '/v1.0/healthz/outbound')).status === 204);
  });
});
