/**
 * Secrets against a real svcd: HTTP and gRPC get/bulk, the unchanged @dapr/dapr DaprClient over both protocols, a
 * `state.redis` Component whose `redisPassword` comes from a local-file secret store (a private Redis that
 * requires it), the Configuration's secret scopes, bad input, and the Redis password searched for in svcd's whole
 * output and in every answer of the run (absent).
 */
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { CommunicationProtocolEnum, DaprClient, LogLevel } from '@dapr/dapr';
import { expect } from 'chai';
import { loadRuntimeApiProto } from '@svc/proto';
import { componentYaml, freePort, PrivateRedisServer, SvcdProcess } from '@svc/runtime/test-support';
import { secretScopesConfiguration } from '../support/secret-scopes.js';

const REDIS_PASSWORD = `redis-pw-${randomUUID()}`;
const API_KEY = `api-key-${randomUUID()}`;
const ENV_TOKEN = `env-token-${randomUUID()}`;

const SECRETS_FILE = JSON.stringify({ redis: { password: REDIS_PASSWORD }, api: { key: API_KEY }, plain: 'plain-value' });

const redisComponent = (port: number): string => `apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: statestore
spec:
  type: state.redis
  version: v1
  metadata:
    - name: redisHost
      value: 127.0.0.1:${port}
    - name: redisPassword
      secretKeyRef:
        name: redis:password
auth:
  secretStore: localsecretstore
`;

type Unary = (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res?: unknown) => void) => void;

describe('secrets (real svcd, HTTP, gRPC, Dapr SDK)', function () {
  this.timeout(60_000);
  let redis: PrivateRedisServer;
  let svcd: SvcdProcess;
  let dapr: Record<string, Unary>;
  /** Every answer of the run, as text, for the final search. */
  const answers: string[] = [];

  async function http(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await svcd.request('GET', path);
    const text = await res.text();
    answers.push(`${res.status} ${JSON.stringify([...res.headers])} ${text}`);
    return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  }

  function call<T>(method: string, req: unknown): Promise<T> {
    return new Promise((resolve, reject) =>
      dapr[method]!.call(dapr, req, new grpc.Metadata(), (err, res) => {
        answers.push(err ? `${err.code} ${err.details}` : JSON.stringify(res));
        if (err) reject(err);
        else resolve(res as T);
      }),
    );
  }

  const failure = (method: string, req: unknown) => call(method, req).then(() => expect.fail(`${method} succeeded`), (err: grpc.ServiceError) => err);

  before(async () => {
    const redisPort = await freePort();
    redis = await PrivateRedisServer.start(redisPort, { password: REDIS_PASSWORD });
    svcd = await SvcdProcess.start({
      resources: {
        'secrets.json': SECRETS_FILE,
        'localsecretstore.yaml': componentYaml('localsecretstore', 'secretstores.local.file', { secretsFile: 'secrets.json' }),
        'envstore.yaml': componentYaml('envstore', 'secretstores.local.env', { prefix: 'SECRETS_E2E_' }),
        'statestore.yaml': redisComponent(redisPort),
        // The app may read its API key; the Redis password is for the component only.
        'config.yaml': secretScopesConfiguration('appconfig', 'localsecretstore', ['redis:password']),
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
        answers.push(JSON.stringify(one), JSON.stringify(bulk));
        expect(one).to.deep.equal({ 'api:key': API_KEY });
        expect(bulk).to.deep.include({ 'api:key': { 'api:key': API_KEY } });
        expect(Object.keys(bulk)).to.not.include('redis:password');
        const denied = await client.secret.get('localsecretstore', 'redis:password').then(() => undefined, (err: Error) => err);
        answers.push(String(denied?.message));
        expect(denied?.message).to.match(/ERR_PERMISSION_DENIED|access denied|PERMISSION_DENIED|403/);
      } finally {
        await client.stop();
      }
    });
  }

  it('starts state.redis with the password from the secret store (the Redis server requires it)', async () => {
    const saved = await svcd.request('POST', '/v1.0/state/statestore', [{ key: 'k', value: { ok: true } }]);
    answers.push(`${saved.status} ${await saved.text()}`);
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

  it("never shows the component's secret: not in svcd's output, not in any answer; the app's secrets not in the output", () => {
    expect(answers.length).to.be.greaterThan(15);
    expect(svcd.output).to.include('component loaded');
    for (const [what, text] of [['svcd output', svcd.output], ['answers', answers.join('\n')]] as const) {
      expect(text.includes(REDIS_PASSWORD), what).to.equal(false);
    }
    expect(svcd.output.includes(API_KEY)).to.equal(false);
    expect(svcd.output.includes(ENV_TOKEN)).to.equal(false);
  });
});
