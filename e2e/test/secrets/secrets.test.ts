/**
 * Secrets against a real svcd: HTTP and gRPC get/bulk, the unchanged @dapr/dapr DaprClient over both protocols, a
 * `state.redis` Component whose `redisPassword` comes from a local-file secret store (a private Redis that
 * requires it), the Configuration's secret scopes, bad input, Components whose secret-filled metadata fails their
 * init (ignored, and fatal in a second svcd), and every secret value searched for in svcd's whole output (debug
 * logs, stdout and stderr) and in every answer of the run — metadata, metrics and health included: absent, but for
 * the answers of the secret reads that serve it to the app.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { CommunicationProtocolEnum, DaprClient, LogLevel } from '@dapr/dapr';
import { expect } from 'chai';
import { loadRuntimeApiProto } from '@svc/proto';
import { componentYaml, freePort, PrivateRedisServer, SvcdProcess } from '@svc/runtime/test-support';
import { secretScopesConfiguration } from '../support/secret-scopes.js';

const REDIS_PASSWORD = `redis-pw-${randomUUID()}`;
/** In a PostgreSQL connection string (as a password often is) whose server does not answer. */
const PG_PASSWORD = `pg-pw-${randomUUID()}`;
/** In a redisHost that is not host:port: the component's own parser refuses it. */
const HOST_SECRET = `host-${randomUUID()}`;
const API_KEY = `api-key-${randomUUID()}`;
const ENV_TOKEN = `env-token-${randomUUID()}`;
/** For the components only: the app is denied them (and the search must not find them anywhere). */
const COMPONENT_SECRETS = ['redis:password', 'pg:url', 'redis:host'];

const secretsFile = (closedPort: number) =>
  JSON.stringify({
    redis: { password: REDIS_PASSWORD, host: `not a host ${HOST_SECRET}` },
    pg: { url: `postgres://postgres:${PG_PASSWORD}@127.0.0.1:${closedPort}/test?connect_timeout=2` },
    api: { key: API_KEY },
    plain: 'plain-value',
  });

/** A Component whose `fromSecrets` metadata entries are secretKeyRefs into localsecretstore. */
function secretRefComponent(name: string, type: string, plain: Record<string, string>, fromSecrets: Record<string, string>, more = ''): string {
  const entries = [
    ...Object.entries(plain).map(([k, v]) => `    - name: ${k}\n      value: "${v}"`),
    ...Object.entries(fromSecrets).map(([k, secret]) => `    - name: ${k}\n      secretKeyRef:\n        name: ${secret}`),
  ];
  return `apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: ${name}
spec:
  type: ${type}
  version: v1
${more}  metadata:
${entries.join('\n')}
auth:
  secretStore: localsecretstore
`;
}

type Unary = (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res?: unknown) => void) => void;

describe('secrets (real svcd, HTTP, gRPC, Dapr SDK)', function () {
  this.timeout(60_000);
  let redis: PrivateRedisServer;
  let redisPort: number;
  /** The secrets file and its store, for a second svcd. */
  let secretStoreResources: Record<string, string>;
  let svcd: SvcdProcess;
  let dapr: Record<string, Unary>;
  /** svcd's output when a Component's secret-filled metadata made it exit, for the final search. */
  let fatalOutput = '';
  /**
   * Every answer of the run, as text, for the final search; `servesSecrets`: a successful secret read (HTTP
   * /v1.0/secrets, GetSecret, GetBulkSecret, the SDK's secret.get/getBulk), whose very job is to show the app's secrets.
   */
  const answers: { text: string; servesSecrets: boolean }[] = [];

  async function http(path: string, port = svcd.ports.http): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    const text = await res.text();
    answers.push({ text: `${res.status} ${JSON.stringify([...res.headers])} ${text}`, servesSecrets: res.ok && path.startsWith('/v1.0/secrets/') });
    const json = res.headers.get('content-type')?.includes('json') && text !== '';
    return { status: res.status, body: json ? (JSON.parse(text) as Record<string, unknown>) : { text } };
  }

  function call<T>(method: string, req: unknown): Promise<T> {
    return new Promise((resolve, reject) =>
      dapr[method]!.call(dapr, req, new grpc.Metadata(), (err, res) => {
        answers.push(err ? { text: `${err.code} ${err.details} ${JSON.stringify(err.metadata.getMap())}`, servesSecrets: false } : { text: JSON.stringify(res), servesSecrets: /^Get(Bulk)?Secret$/.test(method) });
        if (err) reject(err);
        else resolve(res as T);
      }),
    );
  }

  const failure = (method: string, req: unknown) => call(method, req).then(() => expect.fail(`${method} succeeded`), (err: grpc.ServiceError) => err);

  before(async () => {
    const closedPort = await freePort();
    redisPort = await freePort();
    redis = await PrivateRedisServer.start(redisPort, { password: REDIS_PASSWORD });
    secretStoreResources = {
      'secrets.json': secretsFile(closedPort),
      'localsecretstore.yaml': componentYaml('localsecretstore', 'secretstores.local.file', { secretsFile: 'secrets.json' }),
    };
    svcd = await SvcdProcess.start({
      resources: {
        ...secretStoreResources,
        'envstore.yaml': componentYaml('envstore', 'secretstores.local.env', { prefix: 'SECRETS_E2E_' }),
        'statestore.yaml': secretRefComponent('statestore', 'state.redis', { redisHost: `127.0.0.1:${redisPort}` }, { redisPassword: 'redis:password' }),
        'badhost.yaml': secretRefComponent('badhost', 'state.redis', {}, { redisHost: 'redis:host' }, '  ignoreErrors: true\n'),
        'unreachable.yaml': secretRefComponent('unreachable', 'state.postgresql', {}, { connectionString: 'pg:url' }, '  ignoreErrors: true\n'),
        // The app may read its API key; the components' secrets are theirs only.
        'config.yaml': secretScopesConfiguration('appconfig', 'localsecretstore', COMPONENT_SECRETS),
      },
      env: { SECRETS_E2E_TOKEN: ENV_TOKEN },
      args: ['--config', 'appconfig', '--log-level', 'debug'],
    });
    const daprService = loadRuntimeApiProto().services[1]!;
    const Client = grpc.makeGenericClientConstructor(daprService.definition, 'Dapr');
    dapr = new Client(svcd.grpcAddress, grpc.credentials.createInsecure()) as unknown as Record<string, Unary>;
  });
  after(async () => {
    (dapr as unknown as grpc.Client | undefined)?.close();
    await svcd?.dispose();
    await redis?.stop();
  });

  it('serves a secret and the bulk over HTTP, metadata.* query parameters accepted', async () => {
    expect(await http('/v1.0/secrets/localsecretstore/api:key?metadata.version_id=1')).to.deep.equal({ status: 200, body: { 'api:key': API_KEY } });
    expect(await http('/v1.0/secrets/envstore/TOKEN')).to.deep.equal({ status: 200, body: { TOKEN: ENV_TOKEN } });
    const bulk = await http('/v1.0/secrets/localsecretstore/bulk');
    expect(bulk).to.deep.equal({ status: 200, body: { 'api:key': { 'api:key': API_KEY }, plain: { plain: 'plain-value' } } });
  });

  it('serves GetSecret and GetBulkSecret over gRPC', async () => {
    expect(await call('GetSecret', { storeName: 'localsecretstore', key: 'plain' })).to.deep.equal({ data: { plain: 'plain-value' } });
    const bulk = await call<{ data: Record<string, { secrets: Record<string, string> }> }>('GetBulkSecret', { storeName: 'envstore' });
    expect(bulk.data.TOKEN).to.deep.equal({ secrets: { TOKEN: ENV_TOKEN } });
  });

  for (const protocol of [CommunicationProtocolEnum.HTTP, CommunicationProtocolEnum.GRPC]) {
    it(`answers the Dapr SDK's secret.get and secret.getBulk over ${protocol === CommunicationProtocolEnum.HTTP ? 'HTTP' : 'gRPC'}`, async () => {
      const port = protocol === CommunicationProtocolEnum.HTTP ? svcd.ports.http : svcd.ports.grpc;
      const client = new DaprClient({ daprHost: '127.0.0.1', daprPort: String(port), communicationProtocol: protocol, logger: { level: LogLevel.Error } });
      try {
        const one = await client.secret.get('localsecretstore', 'api:key');
        const bulk = await client.secret.getBulk('localsecretstore');
        answers.push({ text: JSON.stringify(one), servesSecrets: true }, { text: JSON.stringify(bulk), servesSecrets: true });
        expect(one).to.deep.equal({ 'api:key': API_KEY });
        expect(bulk).to.deep.include({ 'api:key': { 'api:key': API_KEY } });
        expect(Object.keys(bulk)).to.not.include('redis:password');
        const denied = await client.secret.get('localsecretstore', 'redis:password').then(() => undefined, (err: Error) => err);
        answers.push({ text: String(denied?.message), servesSecrets: false });
        expect(denied?.message).to.match(/ERR_PERMISSION_DENIED|access denied|PERMISSION_DENIED|403/);
      } finally {
        await client.stop();
      }
    });
  }

  it('starts state.redis with the password from the secret store (the Redis server requires it)', async () => {
    const saved = await svcd.request('POST', '/v1.0/state/statestore', [{ key: 'k', value: { ok: true } }]);
    answers.push({ text: `${saved.status} ${await saved.text()}`, servesSecrets: false });
    expect(saved.status).to.equal(204);
    expect(await http('/v1.0/state/statestore/k')).to.deep.equal({ status: 200, body: { ok: true } });
  });

  it("denies what the Configuration's scope denies, and leaves it out of the bulk", async () => {
    const denied = await http('/v1.0/secrets/localsecretstore/redis:password');
    expect(denied.status).to.equal(403);
    expect(denied.body.errorCode).to.equal('ERR_PERMISSION_DENIED');
    const err = await failure('GetSecret', { storeName: 'localsecretstore', key: 'redis:password' });
    expect(err.code).to.equal(grpc.status.PERMISSION_DENIED);
  });

  it('answers bad input with the reference codes: unknown store, missing key, path traversal', async () => {
    const unknown = await http('/v1.0/secrets/nostore/x');
    expect([unknown.status, unknown.body.errorCode]).to.deep.equal([401, 'ERR_SECRET_STORE_NOT_FOUND']);
    expect((await failure('GetBulkSecret', { storeName: 'nostore' })).code).to.equal(grpc.status.INVALID_ARGUMENT);
    const missing = await http('/v1.0/secrets/localsecretstore/nope');
    expect([missing.status, missing.body.errorCode]).to.deep.equal([500, 'ERR_SECRET_GET']);
    for (const key of ['..%2Fsecrets.json', '..%2F..%2F..%2Fetc%2Fpasswd', '%2Fetc%2Fpasswd']) {
      const traversal = await http(`/v1.0/secrets/localsecretstore/${key}`);
      expect([traversal.status, traversal.body.errorCode], key).to.deep.equal([500, 'ERR_SECRET_GET']);
      expect(String(traversal.body.message)).to.not.match(/root:|api-key/);
    }
    expect((await failure('GetSecret', { storeName: 'localsecretstore', key: '../secrets.json' })).code).to.equal(grpc.status.INTERNAL);
  });

  it('lists the secret stores in /v1.0/metadata', async () => {
    const { body } = await http('/v1.0/metadata');
    const components = body.components as Array<{ name: string; type: string }>;
    expect(components.map((c) => [c.name, c.type])).to.deep.include.members([
      ['localsecretstore', 'secretstores.local.file'],
      ['envstore', 'secretstores.local.env'],
      ['statestore', 'state.redis'],
    ]);
  });

  it('refuses a client without the password on that Redis (it really requires one)', async () => {
    const socket = net.connect(redisPort, '127.0.0.1');
    try {
      socket.write('PING\r\n');
      const [reply] = (await once(socket, 'data')) as [Buffer];
      expect(reply.toString()).to.match(/^-NOAUTH/);
    } finally {
      socket.destroy();
    }
  });

  it('ignores (ignoreErrors) the Components whose secret-filled metadata fails their init, saying why without the value', () => {
    const ignored = svcd.output.split('\n').filter((line) => line.includes('ignoring a component that failed to initialise'));
    expect(ignored.map((line) => (JSON.parse(line) as { component: string }).component).sort()).to.deep.equal(['badhost', 'unreachable']);
    // The factory quotes its redisHost, which came from a secret: the value is replaced.
    expect(ignored.join('\n')).to.include('cannot connect to Redis at [secret]:6379').and.include('connect ECONNREFUSED');
  });

  it('answers gRPC GetMetadata, the Prometheus metrics and the outbound health (searched below)', async () => {
    const metadata = await call<{ registeredComponents: { name: string }[] }>('GetMetadata', {});
    expect(metadata.registeredComponents.map((c) => c.name)).to.include.members(['localsecretstore', 'statestore']).and.not.include('badhost');
    const metrics = await http('/metrics', svcd.ports.metrics);
    expect(metrics.status).to.equal(200);
    expect(String(metrics.body.text)).to.match(/^# (HELP|TYPE) /m);
    expect((await http('/v1.0/healthz/outbound')).status).to.equal(204);
  });

  it('exits, naming the component and why, when a Component cannot init with its secret (not ignored), never the value', async () => {
    const fatal = await SvcdProcess.start({
      resources: { ...secretStoreResources, 'fatal.yaml': secretRefComponent('fatal', 'state.postgresql', {}, { connectionString: 'pg:url' }) },
      args: ['--log-level', 'debug'],
      waitReady: false,
    }).catch((err: Error) => err);
    if (fatal instanceof Error) fatalOutput = fatal.message;
    else {
      expect((await fatal.exited).code).to.not.equal(0);
      fatalOutput = fatal.output;
    }
    expect(fatalOutput).to.include('failed to init component fatal (state.postgresql)').and.include('connect ECONNREFUSED');
  });

  it('never shows a secret: the components\' nowhere, the app\'s only in the answers of the secret reads', () => {
    expect(answers.length).to.be.greaterThan(20);
    expect(svcd.output).to.include('component loaded');
    const served = answers.filter((a) => a.servesSecrets).map((a) => a.text).join('\n');
    const others = answers.filter((a) => !a.servesSecrets).map((a) => a.text).join('\n');
    // The search finds what is there: the app's secrets are in the answers that serve them.
    expect(served).to.include(API_KEY).and.include(ENV_TOKEN);
    for (const [what, text] of [['svcd output', svcd.output], ['the failed svcd output', fatalOutput], ['answers', others]] as const) {
      for (const secret of [REDIS_PASSWORD, PG_PASSWORD, HOST_SECRET, API_KEY, ENV_TOKEN]) {
        expect(text.includes(secret), `${secret} in ${what}`).to.equal(false);
      }
    }
    for (const secret of [REDIS_PASSWORD, PG_PASSWORD, HOST_SECRET]) expect(served.includes(secret), `${secret} served`).to.equal(false);
  });
});
