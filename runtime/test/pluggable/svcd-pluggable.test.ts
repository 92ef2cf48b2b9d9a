/**
 * svcd as a real process with real pluggable components on real sockets: discovery, specs, the state API through a
 * pluggable store with its error mapping, health and metadata.
 */
import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { encodeRichStatus, loadComponentsProto, STATUS_DETAILS_TRAILER } from '@svc/proto';
import { expect } from 'chai';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { componentYaml, memoryMiB, SvcdProcess } from '../support/index.js';
import { etagOf, expectError, expectStatus, getRaw } from '../integration/state-http.js';
import { ExampleComponent, rogueSocket, tempSocketsFolder } from '../support/example-component.js';

const FAST_PING = ['--pluggable-ping-interval', '200ms'];

describe('svcd with a multi-API pluggable component (state + pub/sub behind one socket)', function () {
  this.timeout(60_000);
  let component: ExampleComponent;
  let svcd: SvcdProcess;

  before(async () => {
    const folder = tempSocketsFolder();
    component = await ExampleComponent.start({ folder, name: 'memstore' });
    svcd = await SvcdProcess.start({
      socketsFolder: folder,
      args: [...FAST_PING, '--max-request-size', '16Mi'],
      resources: {
        // Spec file names are free: neither relates to the component's name.
        // The component sees state keys with the app id prefix (`testapp||`).
        'zz-unrelated-name.yaml': componentYaml('orders', 'state.memstore', { maxValueBytes: '64', readOnlyKeyPrefix: 'testapp||locked-' }),
        'messaging.yml': componentYaml('events', 'pubsub.memstore'),
        'bulk.yaml': componentYaml('bulkstore', 'state.memstore'),
      },
    });
  });
  after(async () => {
    await svcd?.stop();
    await component?.stop();
  });

  it('lists both components in the metadata, as pluggable, with their features', async () => {
    const body = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { components: { name: string; type: string; origin: string; capabilities: string[] }[] };
    const byName = Object.fromEntries(body.components.map((c) => [c.name, c]));
    expect(byName.orders).to.deep.include({ type: 'state.memstore', origin: 'pluggable' });
    expect(byName.orders?.capabilities).to.have.members(['ETAG', 'TRANSACTIONAL']);
    expect(byName.events).to.deep.include({ type: 'pubsub.memstore', origin: 'pluggable', capabilities: [] });
    await expectStatus(await svcd.request('GET', '/v1.0/healthz/outbound'), 204);
  });

  it('refuses ttlInSeconds on a store that does not list TTL, writing nothing', async () => {
    await expectError(await svcd.request('POST', '/v1.0/state/bulkstore?metadata.ttlInSeconds=60', [{ key: 'ttl', value: 1 }]), 400, 'ERR_STATE_TTL_NOT_SUPPORTED');
    expect(await getRaw(svcd, 'bulkstore', 'ttl')).to.equal(undefined);
  });

  it('serves the state API: save, get with ETag, bulk get, transaction, delete', async () => {
    await expectStatus(await svcd.request('POST', '/v1.0/state/orders', [{ key: 'o1', value: { qty: 2 } }, { key: 'o2', value: 'two' }]), 204);
    expect(await getRaw(svcd, 'orders', 'o1')).to.equal('{"qty":2}');
    expect(await etagOf(svcd, 'orders', 'o1')).to.match(/^[1-9][0-9]*$/);
    const bulk = (await (await svcd.request('POST', '/v1.0/state/orders/bulk', { keys: ['o2', 'nope'] })).json()) as { key: string; data?: unknown }[];
    expect(bulk.map((i) => [i.key, i.data])).to.deep.equal([
      ['o2', 'two'],
      ['nope', undefined],
    ]);
    const tx = { operations: [{ operation: 'upsert', request: { key: 'o3', value: 3 } }, { operation: 'delete', request: { key: 'o2' } }] };
    await expectStatus(await svcd.request('POST', '/v1.0/state/orders/transaction', tx), 204);
    expect([await getRaw(svcd, 'orders', 'o3'), await getRaw(svcd, 'orders', 'o2')]).to.deep.equal(['3', undefined]);
    await expectStatus(await svcd.request('DELETE', '/v1.0/state/orders/o3'), 204);
    expect(await getRaw(svcd, 'orders', 'o3')).to.equal(undefined);
  });

  it('maps an ETag mismatch to 409 and a malformed ETag to 400, leaving the value alone', async () => {
    await expectStatus(await svcd.request('POST', '/v1.0/state/orders', [{ key: 'e1', value: 1 }]), 204);
    const stale = await etagOf(svcd, 'orders', 'e1');
    await expectStatus(await svcd.request('POST', '/v1.0/state/orders', [{ key: 'e1', value: 2, etag: stale }]), 204);
    await expectError(await svcd.request('POST', '/v1.0/state/orders', [{ key: 'e1', value: 3, etag: stale }]), 409, 'ERR_STATE_ETAG_MISMATCH');
    await expectError(await svcd.request('DELETE', '/v1.0/state/orders/e1', undefined, { 'if-match': 'not-a-version' }), 400, 'ERR_STATE_ETAG_INVALID');
    expect(await getRaw(svcd, 'orders', 'e1')).to.equal('2');
  });

  it("passes a component's own HTTP status through (413 for a value over its maxValueBytes)", async () => {
    const body = await expectError(await svcd.request('POST', '/v1.0/state/orders', [{ key: 'big', value: 'x'.repeat(100) }]), 413, 'ERR_STATE_SAVE');
    expect(body.message).to.match(/at most 64/);
    expect(await getRaw(svcd, 'orders', 'big')).to.equal(undefined);
  });

  it('moves values of several MiB in bulk (beyond gRPC default message limits)', async () => {
    const big = (c: string) => c.repeat(2 * 1024 * 1024);
    const items = ['a', 'b', 'c'].map((c) => ({ key: `big-${c}`, value: big(c) }));
    await expectStatus(await svcd.request('POST', '/v1.0/state/bulkstore', items), 204);
    const res = await svcd.request('POST', '/v1.0/state/bulkstore/bulk', { keys: items.map((i) => i.key) });
    const got = (await res.json()) as { key: string; data: string }[];
    expect(got.map((i) => [i.key, i.data.length, i.data[0]])).to.deep.equal(items.map((i) => [i.key, i.value.length, i.key.slice(-1)]));
  });

  it('turns any other component error into a 500 naming the component', async () => {
    const body = await expectError(await svcd.request('POST', '/v1.0/state/orders', [{ key: 'locked-1', value: 1 }]), 500, 'ERR_STATE_SAVE');
    expect(body.message).to.include('orders').and.include('read-only');
  });
});

describe('svcd and pluggable sockets that are not ready, wrong or missing', function () {
  this.timeout(60_000);
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const startComponent = async (opts: Parameters<typeof ExampleComponent.start>[0]) => {
    const c = await ExampleComponent.start(opts);
    cleanups.push(() => c.stop());
    return c;
  };
  const startSvcd = async (opts: Parameters<typeof SvcdProcess.start>[0]) => {
    const s = await SvcdProcess.start(opts);
    cleanups.push(() => s.stop());
    return s;
  };

  it('loads the good component when the folder also holds a plain file, a silent socket and a garbage socket', async () => {
    const folder = tempSocketsFolder();
    writeFileSync(path.join(folder, 'notes.sock'), 'not a socket');
    for (const [name, behaviour] of [['silent', 'silent'], ['garbage', 'garbage']] as const) {
      const rogue = await rogueSocket(path.join(folder, `${name}.sock`), behaviour);
      cleanups.push(() => rogue.close());
    }
    await startComponent({ folder, name: 'good' });
    const svcd = await startSvcd({ socketsFolder: folder, args: ['--pluggable-probe-timeout', '1s', '--log-level', 'debug'], resources: { 'c.yaml': componentYaml('store', 'state.good') } });
    await expectStatus(await svcd.request('POST', '/v1.0/state/store', [{ key: 'k', value: 'v' }]), 204);
    expect(await getRaw(svcd, 'store', 'k')).to.equal('"v"');
    expect(svcd.output).to.include('silent.sock').and.include('garbage.sock').and.include('not a Unix socket');
  });

  it('keeps a built-in when a socket is named like it; only a Component annotated svc.io/pluggable uses the socket', async () => {
    const folder = tempSocketsFolder();
    await startComponent({ folder, name: 'in-memory' });
    const svcd = await startSvcd({
      socketsFolder: folder,
      resources: {
        'c.yaml': componentYaml('cache', 'state.in-memory'),
        'p.yaml': componentYaml('socketcache', 'state.in-memory', {}, { annotations: { 'svc.io/pluggable': 'true' } }),
      },
    });
    const body = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { components: { name: string; origin: string }[] };
    expect(body.components.find((c) => c.name === 'cache')?.origin).to.equal('built-in');
    expect(body.components.find((c) => c.name === 'socketcache')?.origin).to.equal('pluggable');
    expect(svcd.output).to.include('named like a built-in').and.include('svc.io/pluggable');
    // What the app saves in the built-in never reaches the socket's process, and the other way round.
    await expectStatus(await svcd.request('POST', '/v1.0/state/cache', [{ key: 'k', value: 'built-in' }]), 204);
    await expectStatus(await svcd.request('POST', '/v1.0/state/socketcache', [{ key: 'k2', value: 'socket' }]), 204);
    expect([await getRaw(svcd, 'cache', 'k'), await getRaw(svcd, 'socketcache', 'k')]).to.deep.equal(['"built-in"', undefined]);
    expect([await getRaw(svcd, 'socketcache', 'k2'), await getRaw(svcd, 'cache', 'k2')]).to.deep.equal(['"socket"', undefined]);
  });

  it("refuses another user's socket at once, naming its owner and the option; uses it once that uid is trusted", async () => {
    const folder = tempSocketsFolder();
    chmodSync(folder, 0o777); // the other user must be able to create its socket here
    await startComponent({ folder, name: 'theirs', runAsUid: 65534 });
    const resources = { 'c.yaml': componentYaml('store', 'state.theirs') };
    const refused = await SvcdProcess.start({ socketsFolder: folder, resources, args: ['--pluggable-wait-timeout', '30s'] }).then(
      async (s) => {
        await s.stop();
        return 'started';
      },
      (err: Error) => err.message,
    );
    expect(refused).to.include('ERR_PLUGGABLE_SOCKET_UNTRUSTED').and.include('owned by uid 65534').and.include('--pluggable-trusted-uids 65534');
    const svcd = await startSvcd({ socketsFolder: folder, resources, args: ['--pluggable-trusted-uids', '65534'] });
    await expectStatus(await svcd.request('POST', '/v1.0/state/store', [{ key: 'k', value: 1 }]), 204);
    expect(await getRaw(svcd, 'store', 'k')).to.equal('1');
  });

  it('creates a missing sockets folder readable by its own user only (0700)', async () => {
    const folder = path.join(tempSocketsFolder(), 'made-by-svcd');
    const spec = componentYaml('later', 'state.later', {}, { ignoreErrors: true });
    await startSvcd({ socketsFolder: folder, resources: { 'c.yaml': spec }, args: ['--pluggable-wait-timeout', '100ms'] });
    expect(statSync(folder).mode & 0o777).to.equal(0o700);
  });

  for (const variant of [
    { pkg: 'dapr.proto.components.v1', reflection: 'v1+v1alpha', expectVersion: 'v1' },
    { pkg: 'svc.proto.components.v1', reflection: 'v1alpha', expectVersion: 'v1alpha' },
    { pkg: 'dapr.proto.components.v1', reflection: 'v1alpha', expectVersion: 'v1alpha' },
  ] as const) {
    it(`calls a component serving only ${variant.pkg} names, found over reflection ${variant.expectVersion}`, async () => {
      const folder = tempSocketsFolder();
      await startComponent({ folder, name: 'other', pkg: variant.pkg, reflection: variant.reflection });
      const svcd = await startSvcd({ socketsFolder: folder, resources: { 'c.yaml': componentYaml('legacy', 'state.other') } });
      await expectStatus(await svcd.request('POST', '/v1.0/state/legacy', [{ key: 'k', value: { a: 1 } }]), 204);
      expect(await getRaw(svcd, 'legacy', 'k')).to.equal('{"a":1}');
      const tx = { operations: [{ operation: 'delete', request: { key: 'k' } }] };
      await expectStatus(await svcd.request('POST', '/v1.0/state/legacy/transaction', tx), 204);
      expect(await getRaw(svcd, 'legacy', 'k')).to.equal(undefined);
      const registered = svcd.output
        .split('\n')
        .filter((l) => l.includes('pluggable component registered'))
        .map((l) => JSON.parse(l) as { type: string; package: string; reflection: string });
      expect(registered.find((r) => r.type === 'state.other')).to.deep.include({ package: variant.pkg, reflection: variant.expectVersion });
    });
  }

  it('refuses transactions with ERR_STATE_STORE_NOT_SUPPORTED when the component is not transactional', async () => {
    const folder = tempSocketsFolder();
    await startComponent({ folder, name: 'plainstore', withoutTransactions: true });
    const svcd = await startSvcd({ socketsFolder: folder, resources: { 'c.yaml': componentYaml('plain', 'state.plainstore') } });
    const body = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { components: { name: string; capabilities: string[] }[] };
    expect(body.components.find((c) => c.name === 'plain')?.capabilities).to.deep.equal(['ETAG']);
    const tx = { operations: [{ operation: 'upsert', request: { key: 'k', value: 1 } }] };
    await expectError(await svcd.request('POST', '/v1.0/state/plain/transaction', tx), 500, 'ERR_STATE_STORE_NOT_SUPPORTED');
    expect(await getRaw(svcd, 'plain', 'k')).to.equal(undefined);
    await expectStatus(await svcd.request('POST', '/v1.0/state/plain', [{ key: 'k', value: 1 }]), 204);
  });

  /** A state store component served from this test process on `<folder>/<name>.sock`, with the given handlers. */
  async function inTestStateStore(folder: string, name: string, handlers: Record<string, grpc.UntypedHandleCall>): Promise<void> {
    const proto = loadComponentsProto()['dapr.proto.components.v1'];
    const server = new grpc.Server({ 'grpc.max_send_message_length': -1 });
    server.addService(proto.grpc.StateStore.service, {
      Init: (_call: unknown, cb: grpc.sendUnaryData<object>) => cb(null, {}),
      Features: (_call: unknown, cb: grpc.sendUnaryData<object>) => cb(null, { features: ['ETAG'] }),
      Ping: (_call: unknown, cb: grpc.sendUnaryData<object>) => cb(null, {}),
      ...handlers,
    });
    new ReflectionService(await proto.definition(), { services: ['dapr.proto.components.v1.StateStore'] }).addToServer(server);
    await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${folder}/${name}.sock`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
    cleanups.push(() => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));
  }

  it('passes only 4xx and 5xx http_code of a component through; 1xx, 2xx and 3xx are a 500 naming the component', async () => {
    const folder = tempSocketsFolder();
    await inTestStateStore(folder, 'odd', {
      // Every save fails with the HTTP status its key names (`…code-<n>`), as a buggy or hostile component might.
      Set: (call: grpc.ServerUnaryCall<{ key: string }, object>, cb: grpc.sendUnaryData<object>) => {
        const httpCode = call.request.key.split('code-')[1]!;
        const metadata = new grpc.Metadata();
        const detail = { type: 'google.rpc.ErrorInfo' as const, reason: 'R', domain: 'test', metadata: { http_code: httpCode, tag: 'ERR_ODD' } };
        metadata.set(STATUS_DETAILS_TRAILER, encodeRichStatus({ code: grpc.status.INTERNAL, message: 'save refused', details: [detail] }));
        cb({ code: grpc.status.INTERNAL, details: 'save refused', metadata });
      },
    });
    const svcd = await startSvcd({ socketsFolder: folder, resources: { 'c.yaml': componentYaml('odd', 'state.odd') } });
    for (const code of [100, 200, 204, 304]) {
      const body = await expectError(await svcd.request('POST', '/v1.0/state/odd', [{ key: `code-${code}`, value: 1 }]), 500, 'ERR_STATE_SAVE');
      expect(body.message).to.include('pluggable state store odd').and.include(`http_code ${code}`);
    }
    await expectError(await svcd.request('POST', '/v1.0/state/odd', [{ key: 'code-429', value: 1 }]), 429, 'ERR_STATE_SAVE');
    await expectError(await svcd.request('POST', '/v1.0/state/odd', [{ key: 'code-503', value: 1 }]), 503, 'ERR_STATE_SAVE');
  });

  it('refuses replies over --pluggable-max-reply-size with 502 as they arrive, staying small, and keeps serving', async () => {
    const folder = tempSocketsFolder();
    const MiB = 1024 * 1024;
    await inTestStateStore(folder, 'huge', {
      // `huge-<n>` answers n MiB, like a buggy or hostile component; anything else a small value.
      Get: (call: grpc.ServerUnaryCall<{ key: string }, object>, cb: grpc.sendUnaryData<object>) => {
        const mib = Number(call.request.key.split('huge-')[1] ?? 0);
        cb(null, { data: mib > 0 ? Buffer.alloc(mib * MiB, 0x61) : Buffer.from('"small"'), etag: { value: '1' } });
      },
    });
    const svcd = await startSvcd({ socketsFolder: folder, resources: { 'c.yaml': componentYaml('big', 'state.huge') } });
    const rssMiB = () => memoryMiB(svcd.child.pid!);
    const before = rssMiB();
    const answers = await Promise.all(['huge-200', 'huge-200', 'huge-200', 'huge-200'].map((k) => svcd.request('GET', `/v1.0/state/big/${k}`)));
    for (const res of answers) {
      const body = (await res.json()) as { errorCode: string; message: string };
      expect([res.status, body.errorCode]).to.deep.equal([502, 'ERR_COMPONENT_REPLY_TOO_LARGE']);
      expect(body.message).to.include('big').and.include('--pluggable-max-reply-size');
    }
    // 800 MiB were sent at svcd; it never held them (before the bound, one such reply took it from 78 to 483 MiB).
    expect(rssMiB() - before, 'RSS growth in MiB').to.be.below(100);
    expect(await getRaw(svcd, 'big', 'small-1')).to.equal('"small"');
  });

  it('keeps component calls in flight within --pluggable-reply-budget ÷ --pluggable-max-reply-size; the rest wait their turn', async () => {
    const folder = tempSocketsFolder();
    let inFlight = 0;
    let most = 0;
    const held: (() => void)[] = [];
    let arrived!: () => void;
    let twoArrived = new Promise<void>((resolve) => (arrived = resolve));
    await inTestStateStore(folder, 'slow', {
      Get: (_call: unknown, cb: grpc.sendUnaryData<object>) => {
        most = Math.max(most, ++inFlight);
        held.push(() => {
          inFlight--;
          cb(null, { data: Buffer.from('"v"'), etag: { value: '1' } });
        });
        if (held.length === 2) arrived();
      },
    });
    const svcd = await startSvcd({ socketsFolder: folder, resources: { 'c.yaml': componentYaml('slow', 'state.slow') }, args: ['--pluggable-max-reply-size', '1Mi', '--pluggable-reply-budget', '2Mi'] });
    const gets = Array.from({ length: 6 }, (_, i) => svcd.request('GET', `/v1.0/state/slow/k${i}`));
    for (let round = 0; round < 3; round++) {
      await twoArrived;
      twoArrived = new Promise<void>((resolve) => (arrived = resolve));
      // The component holds two calls: svcd sent no third one meanwhile (a health check would confirm it answers).
      expect((await svcd.request('GET', '/v1.0/healthz')).status).to.equal(204);
      expect(held.length, `round ${round}`).to.equal(2);
      for (const release of held.splice(0)) release();
    }
    expect((await Promise.all(gets)).map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);
    expect(most).to.equal(2);
  });

  it('registers an output binding with its operations, healthy even though it does not implement Ping', async () => {
    const folder = tempSocketsFolder();
    const proto = loadComponentsProto()['dapr.proto.components.v1'];
    const server = new grpc.Server();
    const initialised: string[] = [];
    let pinged!: () => void;
    const twoPings = new Promise<void>((resolve) => (pinged = resolve));
    let pings = 0;
    server.addService(proto.grpc.OutputBinding.service, {
      // As a component that never expected Ping (Dapr does not call it) would answer.
      Ping: (_call: unknown, cb: grpc.sendUnaryData<object>) => {
        if (++pings === 2) pinged();
        cb({ code: grpc.status.UNIMPLEMENTED, details: 'Ping is not implemented' });
      },
      Init: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<object>) => {
        initialised.push(String(call.metadata.get('x-component-instance')[0]));
        cb(null, {});
      },
      ListOperations: (_call: unknown, cb: grpc.sendUnaryData<object>) => cb(null, { operations: ['create', 'get'] }),
      // Invoke is left out: grpc-js answers UNIMPLEMENTED for it.
    });
    new ReflectionService(await proto.definition(), { services: ['dapr.proto.components.v1.OutputBinding'] }).addToServer(server);
    await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${folder}/mailer.sock`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
    cleanups.push(() => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));

    const svcd = await startSvcd({ socketsFolder: folder, args: FAST_PING, resources: { 'c.yaml': componentYaml('notify', 'bindings.mailer') } });
    const body = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { components: { name: string; type: string; capabilities: string[] }[] };
    expect(body.components.find((c) => c.name === 'notify')).to.deep.include({ type: 'bindings.mailer', capabilities: ['OUTPUT_BINDING', 'create', 'get'] });
    expect(initialised).to.deep.equal(['notify']);
    await twoPings;
    await expectStatus(await svcd.request('GET', '/v1.0/healthz/outbound'), 204);
  });

  it('waits for the socket of a component that starts after svcd', async () => {
    const folder = tempSocketsFolder();
    const svcd = await startSvcd({ socketsFolder: folder, waitReady: false, args: ['--pluggable-wait-timeout', '20s'], resources: { 'c.yaml': componentYaml('late', 'state.latecomer') } });
    // Start the component only once svcd says it is waiting for it.
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (svcd.output.includes('waiting for a pluggable component socket')) {
          svcd.child.stdout?.off('data', check);
          resolve();
        }
      };
      svcd.child.stdout?.on('data', check);
      void svcd.exited.then(() => reject(new Error(`svcd exited:\n${svcd.output}`)));
      check();
    });
    // Component types ignore case, so the socket LateComer.sock serves state.latecomer.
    await startComponent({ folder, name: 'LateComer' });
    await svcd.waitReady(20_000);
    await expectStatus(await svcd.request('POST', '/v1.0/state/late', [{ key: 'k', value: 1 }]), 204);
    expect(await getRaw(svcd, 'late', 'k')).to.equal('1');
  });

  it('fails to start, naming the socket, the folder and the scoping rule, when the socket never appears', async () => {
    const folder = tempSocketsFolder();
    const svcd = await startSvcd({ socketsFolder: folder, waitReady: false, args: ['--pluggable-wait-timeout', '500ms'], resources: { 'c.yaml': componentYaml('ghost', 'state.ghost') } });
    const { code } = await svcd.exited;
    expect(code).to.equal(1);
    expect(svcd.output).to.include("no socket for pluggable component 'ghost'");
    expect(svcd.output).to.include(folder).and.include('ghost.sock').and.include('scope');
  });
});
