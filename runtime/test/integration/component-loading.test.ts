import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { componentYaml, dropTestPostgresTable, freePort, SvcdProcess, TEST_POSTGRES_URL, TEST_REDIS_HOST } from '../support/index.js';
import { expectError, expectStatus } from './state-http.js';

interface ComponentInfo {
  name: string;
  type: string;
  version: string;
  capabilities: string[];
}

async function components(svcd: SvcdProcess): Promise<ComponentInfo[]> {
  const body = JSON.parse(await expectStatus(await svcd.request('GET', '/v1.0/metadata'), 200)) as { components: ComponentInfo[] };
  return body.components;
}

/** Starts svcd expecting it to fail: exit code 1 and its output. */
async function failedStart(resources: Record<string, string>): Promise<string> {
  const svcd = await SvcdProcess.start({ resources, waitReady: false });
  const exit = await svcd.exited;
  expect(exit.code, svcd.output).to.equal(1);
  return svcd.output;
}

/** A TCP server that accepts connections and never answers: a store behind it hangs in init. */
async function silentServer(): Promise<{ address: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => void sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('component loading', function () {
  this.timeout(60_000);

  it('lists loaded components in /v1.0/metadata with type, version and capabilities', async () => {
    const svcd = await SvcdProcess.start({
      resources: {
        'a.yaml': componentYaml('embedded', 'state.sqlite'),
        'b.yml': componentYaml('cache', 'state.redis', { redisHost: TEST_REDIS_HOST }),
        'c.yaml': componentYaml('scratch', 'state.in-memory'),
      },
    });
    try {
      const list = await components(svcd);
      expect(list.map((c) => c.name)).to.deep.equal(['embedded', 'cache', 'scratch']);
      for (const c of list) {
        expect(c.version).to.equal('v1');
        expect(c.capabilities).to.include.members(['ETAG', 'TRANSACTIONAL', 'ACTOR']);
      }
      expect(list.map((c) => c.type)).to.deep.equal(['state.sqlite', 'state.redis', 'state.in-memory']);
    } finally {
      await svcd.stop();
    }
  });

  it('loads every Component of a multi-document file (Dapr ones with a warning) and skips other kinds with a log line', async () => {
    const other = 'apiVersion: dapr.io/v1alpha1\nkind: HTTPEndpoint\nmetadata:\n  name: external\nspec: {}\n';
    const foreign = componentYaml('foreign', 'state.in-memory').replace('svc.io/v1alpha1', 'dapr.io/v1alpha1');
    const svcd = await SvcdProcess.start({
      resources: { 'all.yaml': [componentYaml('one', 'state.in-memory'), other, foreign, componentYaml('two', 'state.sqlite')].join('---\n'), 'notes.txt': 'not yaml' },
    });
    try {
      expect((await components(svcd)).map((c) => c.name)).to.deep.equal(['one', 'foreign', 'two']);
      expect(svcd.output).to.include('skipping a document that is not a Component');
      expect(svcd.output).to.include('Configuration');
      expect(svcd.output).to.match(/all\.yaml \(document 3\).*loading a dapr\.io\/v1alpha1 Component; write apiVersion: svc\.io\/v1alpha1/);
      expect((await svcd.request('POST', '/v1.0/state/foreign', [{ key: 'k', value: 1 }])).status).to.equal(204);
    } finally {
      await svcd.stop();
    }
  });

  it('fails at once on a type that is neither built in nor a pluggable socket, listing the built-in types', async () => {
    const svcd = await SvcdProcess.start({ resources: { 'kafka.yaml': componentYaml('events', 'pubsub.kafka') }, waitReady: false });
    try {
      expect((await svcd.exited).code).to.equal(1);
      expect(svcd.output).to.match(/component events \(pubsub\.kafka, from file .*kafka\.yaml\): 'pubsub\.kafka' is not a built-in type \(built-in pubsub types: pubsub\.in-memory, pubsub\.jetstream, pubsub\.redis, pubsub\.sqlite\) and no pluggable component socket kafka\.sock is in /);
      expect(svcd.output).to.include('ERR_COMPONENT_TYPE_UNKNOWN');
      expect(svcd.output).to.not.include('waiting for a pluggable component socket');
    } finally {
      await svcd.dispose();
    }
  });

  it('honours scopes: a component scoped to other apps is not loaded', async () => {
    const svcd = await SvcdProcess.start({
      appId: 'checkout',
      resources: {
        'mine.yaml': componentYaml('mine', 'state.in-memory', {}, { scopes: ['checkout', 'billing'] }),
        'theirs.yaml': componentYaml('theirs', 'state.in-memory', {}, { scopes: ['billing'] }),
      },
    });
    try {
      expect((await components(svcd)).map((c) => c.name)).to.deep.equal(['mine']);
      await expectStatus(await svcd.request('POST', '/v1.0/state/mine', [{ key: 'k', value: 1 }]), 204);
      await expectError(await svcd.request('POST', '/v1.0/state/theirs', [{ key: 'k', value: 1 }]), 400, 'ERR_STATE_STORE_NOT_FOUND');
    } finally {
      await svcd.stop();
    }
  });

  it('exits 1 on duplicate component names, naming both definitions', async () => {
    const output = await failedStart({ 'a.yaml': componentYaml('store', 'state.in-memory'), 'b.yaml': componentYaml('store', 'state.sqlite') });
    expect(output).to.match(/duplicate definition of component name store \(state\.sqlite\/v1 in .*b\.yaml\) with existing store \(state\.in-memory\/v1 in .*a\.yaml\)/);
  });

  it('exits 1 on a spec.version other than v1, naming the file, the document and the field', async () => {
    const output = await failedStart({ 'stores.yaml': [componentYaml('ok', 'state.in-memory'), componentYaml('bad', 'state.in-memory', {}, { version: 'v2' })].join('---\n') });
    expect(output).to.match(/stores\.yaml \(document 2\): spec\.version must be 'v1', got \\?"v2\\?"/);
  });

  it('exits 1 on bad component metadata, naming the component, its file and the metadata', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ redisHost: '127.0.0.1:notaport' }, /metadata redisHost '127\.0\.0\.1:notaport' must be host:port/],
      [{ redisHost: TEST_REDIS_HOST, redisDB: 'two' }, /metadata redisDB 'two' must be a database number/],
    ];
    for (const [metadata, problem] of cases) {
      const output = await failedStart({ 'cache.yaml': componentYaml('cache', 'state.redis', metadata) });
      expect(output).to.match(/component 'cache' \(file \/[^)]*\/cache\.yaml\): metadata/);
      expect(output).to.match(problem);
    }
    const missing = await failedStart({ 'db.yaml': componentYaml('orders', 'state.postgresql') });
    expect(missing).to.match(/component 'orders' \(file \/[^)]*\/db\.yaml\): metadata connectionString is required/);
  });

  it('exits 1 on an unknown key in a key=value PostgreSQL connection string, naming the key, the component and its file', async () => {
    const output = await failedStart({ 'db.yaml': componentYaml('orders', 'state.postgresql', { connectionString: 'host=127.0.0.1 port=5432 user=postgres dbname=test sslcompression=1' }) });
    expect(output).to.match(/component 'orders' \(file \/[^)]*\/db\.yaml\): metadata connectionString: unknown key 'sslcompression'/);
  });

  it('starts with a key=value PostgreSQL connection string', async () => {
    const { hostname, port, username, pathname } = new URL(TEST_POSTGRES_URL);
    const connectionString = `host=${hostname} port=${port || 5432} user=${username} dbname=${pathname.slice(1)}`;
    const table = `kv_form_${randomBytes(4).toString('hex')}`;
    const svcd = await SvcdProcess.start({ resources: { 'db.yaml': componentYaml('orders', 'state.postgresql', { connectionString, tableName: table }) } });
    try {
      await expectStatus(await svcd.request('POST', '/v1.0/state/orders', [{ key: 'k', value: 1 }]), 204);
      expect(await expectStatus(await svcd.request('GET', '/v1.0/state/orders/k'), 200)).to.equal('1');
    } finally {
      await svcd.dispose();
      await dropTestPostgresTable(table);
    }
  });

  it('exits 1 when a store cannot reach its server, with the component and the reason', async () => {
    const port = await freePort();
    const output = await failedStart({ 'r.yaml': componentYaml('cache', 'state.redis', { redisHost: `127.0.0.1:${port}` }) });
    expect(output).to.include('failed to init component cache (state.redis)');
    expect(output).to.include(`cannot connect to Redis at 127.0.0.1:${port}`);
  });

  it('exits 1 when a component init exceeds its initTimeout', async () => {
    const silent = await silentServer();
    try {
      const output = await failedStart({ 'r.yaml': componentYaml('slow', 'state.redis', { redisHost: silent.address }, { initTimeout: '1s' }) });
      expect(output).to.match(/init timeout for component slow \(state\.redis\) after 1000 ms/);
    } finally {
      await silent.close();
    }
  });

  it('keeps going past failing components marked ignoreErrors, and loads the rest', async () => {
    const silent = await silentServer();
    const closed = await freePort();
    try {
      const svcd = await SvcdProcess.start({
        resources: {
          'a.yaml': componentYaml('slow', 'state.redis', { redisHost: silent.address }, { initTimeout: '500ms', ignoreErrors: true }),
          'b.yaml': componentYaml('down', 'state.postgresql', { connectionString: `postgres://postgres@127.0.0.1:${closed}/test` }, { ignoreErrors: true }),
          'c.yaml': componentYaml('good', 'state.in-memory'),
        },
      });
      try {
        expect((await components(svcd)).map((c) => c.name)).to.deep.equal(['good']);
        expect(svcd.output).to.include('ignoring a component that failed to initialise');
        await expectError(await svcd.request('GET', '/v1.0/state/down/k'), 400, 'ERR_STATE_STORE_NOT_FOUND');
        await expectStatus(await svcd.request('GET', '/v1.0/state/good/k'), 204);
      } finally {
        await svcd.stop();
      }
    } finally {
      await silent.close();
    }
  });
});
