/**
 * Bindings against a real svcd and a real app: output bindings through `/v1.0/bindings/<name>` (the example
 * pluggable component's outbox), input bindings delivered to the app (its outbox events, `bindings.cron`) with
 * retries, the OPTIONS probe, and error codes.
 */
import { expect } from 'chai';
import { ExampleComponent, SubscriberApp, SvcdProcess, componentYaml, memoryMiB, tempSocketsFolder } from '../support/index.js';

describe('bindings over HTTP (pluggable input and output, bindings.cron)', function () {
  this.timeout(60_000);
  let component: ExampleComponent;
  let app: SubscriberApp;
  let svcd: SvcdProcess;
  const invoke = (name: string, body: unknown) => svcd.request('POST', `/v1.0/bindings/${name}`, body);

  before(async () => {
    const folder = tempSocketsFolder();
    component = await ExampleComponent.start({ folder, name: 'memstore' });
    app = await SubscriberApp.start();
    app.answers.set('/unheard', [{ status: 404 }]);
    svcd = await SvcdProcess.start({
      socketsFolder: folder,
      resources: {
        'outbox.yaml': componentYaml('outbox', 'bindings.memstore', { retryInitialInterval: '20ms' }),
        'tick.yaml': componentYaml('tick', 'bindings.cron', { schedule: '@every 1s', route: '/ticks' }),
        'unheard.yaml': componentYaml('unheard', 'bindings.cron', { schedule: '* * * * * *' }),
      },
      args: ['--app-port', String(app.port)],
    });
  });
  after(async () => {
    await svcd?.dispose();
    await app?.stop();
    await component?.stop();
  });

  it('invokes output operations: the answer data is the body, its metadata metadata.<k> headers', async () => {
    const created = await invoke('outbox', { operation: 'create', data: { order: 7 }, metadata: { contentType: 'application/json' } });
    expect(created.status).to.equal(200);
    const { id } = (await created.json()) as { id: string };
    expect(created.headers.get('metadata.id')).to.equal(id);
    const got = await invoke('outbox', { operation: 'get', metadata: { id } });
    expect([got.status, await got.text()]).to.deep.equal([200, '{"order":7}']);
    expect(await (await invoke('outbox', { operation: 'list' })).json()).to.include(id);
    expect((await invoke('outbox', { operation: 'delete', metadata: { id } })).status).to.equal(204);
    const text = await invoke('outbox', { operation: 'create', data: 'plain words', metadata: { contentType: 'text/plain' } });
    const textId = ((await text.json()) as { id: string }).id;
    expect(await (await invoke('outbox', { operation: 'get', metadata: { id: textId } })).text(), 'a JSON string is sent as its text').to.equal('plain words');
  });

  it('delivers input events to POST /<name>, retrying one the app failed', async () => {
    await new Promise((r) => setTimeout(r, 300)); // the first test's entries were delivered (answered 200)
    app.answers.set('/outbox', [{ status: 500 }, { status: 200 }]);
    const created = await invoke('outbox', { operation: 'create', data: { hello: 'app' }, metadata: { contentType: 'application/json' } });
    const { id } = (await created.json()) as { id: string };
    await eventuallyDelivered(app, '/outbox', (d) => d.headers.id === id, 2);
    const forId = app.to('/outbox').filter((d) => d.headers.id === id);
    expect(forId.map((d) => d.body)).to.deep.equal([{ hello: 'app' }, { hello: 'app' }]); // the 500, then the 200
  });

  it('fires bindings.cron on its schedule at the route in its metadata, and reads no binding the app does not listen for', async () => {
    const ticks = await app.waitFor('/ticks', 2, 5000);
    expect(ticks[0]!.headers.schedule).to.equal('@every 1s');
    expect(app.to('/unheard'), 'OPTIONS /unheard answered 404').to.have.length(0);
    expect(svcd.output).to.match(/does not listen for this input binding/);
  });

  it('answers errors with codes', async () => {
    const cases: [unknown, string, number, string][] = [
      [{ operation: 'create' }, 'nope', 404, 'ERR_BINDING_NOT_FOUND'],
      [{ operation: 'create' }, 'tick', 404, 'ERR_BINDING_NOT_FOUND'], // an input-only binding cannot be invoked
      [{ data: 1 }, 'outbox', 400, 'ERR_MALFORMED_REQUEST'],
      [{ operation: 'explode' }, 'outbox', 400, 'ERR_BINDING_OPERATION_NOT_SUPPORTED'],
      ['{"operation":', 'outbox', 400, 'ERR_MALFORMED_REQUEST'],
      [{ operation: 'get', metadata: { id: 'missing' } }, 'outbox', 500, 'ERR_INVOKE_OUTPUT_BINDING'],
    ];
    for (const [body, name, status, code] of cases) {
      const res = await invoke(name, body);
      const err = (await res.json()) as { errorCode: string; message: string };
      expect([res.status, err.errorCode], err.message).to.deep.equal([status, code]);
    }
  });

  it('refuses to start with a cron schedule it cannot read, naming the component', async () => {
    const bad = await SvcdProcess.start({ resources: { 'bad.yaml': componentYaml('nightly', 'bindings.cron', { schedule: '0 0 25 * * *' }) }, waitReady: false });
    try {
      await bad.exited;
      expect(bad.output).to.match(/nightly.*schedule '0 0 25 \* \* \*'.*hour '25' is outside 0-23/s);
    } finally {
      await bad.dispose();
    }
  });
});

async function eventuallyDelivered(app: SubscriberApp, path: string, match: (d: SubscriberApp['deliveries'][number]) => boolean, count: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (app.to(path).filter(match).length < count) {
    if (Date.now() > deadline) throw new Error(`${count} deliveries to ${path} not seen`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('an input binding whose app is down', function () {
  const DOWN_MS = Number(process.env.APP_DOWN_MS ?? 8_000);
  this.timeout(60_000 + DOWN_MS);

  it(`loses nothing while the app is down (${DOWN_MS / 1000} s) and delivers everything once it is back`, async () => {
    const folder = tempSocketsFolder();
    const component = await ExampleComponent.start({ folder, name: 'memstore' });
    let app = await SubscriberApp.start();
    const port = app.port;
    // Few, quick attempts: an event handed back unacknowledged many times over (the example's outbox offers it again).
    const svcd = await SvcdProcess.start({
      socketsFolder: folder,
      resources: { 'outbox.yaml': componentYaml('outbox', 'bindings.memstore', { maxDeliveryAttempts: '3', retryInitialInterval: '20ms', retryMaxInterval: '200ms' }) },
      args: ['--app-port', String(port)],
    });
    const rss = () => memoryMiB(svcd.child.pid!);
    try {
      await app.stop();
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        const res = await svcd.request('POST', '/v1.0/bindings/outbox', { operation: 'create', data: { i }, metadata: { contentType: 'application/json' } });
        expect(res.status).to.equal(200);
        ids.push(((await res.json()) as { id: string }).id);
      }
      const before = rss();
      await new Promise((r) => setTimeout(r, DOWN_MS));
      const whileDown = rss();
      app = await SubscriberApp.start([], port);
      const missing = () => {
        const seen = new Set(app.to('/outbox').map((d) => String(d.headers.id)));
        return ids.filter((id) => !seen.has(id));
      };
      const deadline = Date.now() + 30_000;
      while (missing().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(missing()).to.deep.equal([]);
      expect(svcd.child.exitCode).to.equal(null);
      console.log(`      20 events, app down ${DOWN_MS / 1000} s: all delivered once it was back; svcd RSS ${before.toFixed(0)} → ${whileDown.toFixed(0)} MiB while down`);
    } finally {
      await svcd.dispose();
      await app.stop();
      await component.stop();
    }
  });
});
