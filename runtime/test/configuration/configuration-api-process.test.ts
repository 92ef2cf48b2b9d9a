/**
 * The configuration API of a real svcd with `configuration.redis` and `configuration.postgresql`: get over HTTP
 * (items by key, 204 when none) and gRPC; an HTTP subscription whose changes the app receives at
 * `/configuration/<store>/<key>` until it unsubscribes; a gRPC SubscribeConfiguration stream whose first message
 * is the id, ended with OK by UnsubscribeConfiguration and by svcd stopping; the stores in `/v1.0/metadata`; and
 * Dapr's errors.
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SubscriberApp, SvcdProcess, daprRuntimeClient, TEST_POSTGRES_URL, TEST_REDIS_HOST, componentYaml, configurationTableSql, eventually, withTestPostgres, withTestRedis } from '../support/index.js';

type Item = { value: string; version: string; metadata: Record<string, string> };
type StreamMessage = { id: string; items: Record<string, Item> };

const daprClient = (port: number) => daprRuntimeClient<Record<string, (...args: unknown[]) => unknown>>(`127.0.0.1:${port}`);

describe('configuration API (real svcd, configuration.redis and configuration.postgresql)', function () {
  this.timeout(60_000);
  const prefix = `cfgapi-${randomUUID()}-`;
  const table = `cfgapi_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let app: SubscriberApp;
  let svcd: SvcdProcess;
  let client: ReturnType<typeof daprClient>;
  const setRedis = (key: string, value: string) => withTestRedis((r) => r.set(prefix + key, value));
  const unary = <T>(method: string, req: unknown) =>
    new Promise<T>((resolve, reject) => (client[method] as (r: unknown, cb: (e: Error | null, v?: T) => void) => void).call(client, req, (e, v) => (e ? reject(e) : resolve(v!))));

  before(async () => {
    await setRedis('color', 'blue||v1');
    await setRedis('size', 'xl');
    await withTestPostgres((pgc) => pgc.query(`${configurationTableSql(table, `${table}_changes`)}; INSERT INTO ${table} VALUES ('limit', '10', 'v1', '{"unit": "rps"}')`));
    app = await SubscriberApp.start();
    svcd = await SvcdProcess.start({
      resources: {
        'redis.yaml': componentYaml('redisconfig', 'configuration.redis', { redisHost: TEST_REDIS_HOST }),
        'pg.yaml': componentYaml('pgconfig', 'configuration.postgresql', { connectionString: TEST_POSTGRES_URL, table }),
      },
      args: ['--app-port', String(app.port)],
    });
    client = daprClient(svcd.ports.grpc);
  });
  after(async () => {
    client?.close();
    await svcd?.dispose();
    await app?.stop();
    await withTestRedis((r) => r.del(prefix + 'color', prefix + 'size'));
    await withTestPostgres((pgc) => pgc.query(`DROP TABLE IF EXISTS ${table}; DROP FUNCTION IF EXISTS ${table}_notify()`));
  });

  it('HTTP get: the items asked for by key (v1.0 and v1.0-alpha1), 204 when none exist', async () => {
    const res = await svcd.request('GET', `/v1.0/configuration/redisconfig?key=${prefix}color&key=${prefix}size&key=${prefix}none`);
    expect([res.status, await res.json()]).to.deep.equal([200, { [`${prefix}color`]: { value: 'blue', version: 'v1', metadata: {} }, [`${prefix}size`]: { value: 'xl', version: '', metadata: {} } }]);
    const pg = await svcd.request('GET', `/v1.0-alpha1/configuration/pgconfig`);
    expect(await pg.json()).to.deep.equal({ limit: { value: '10', version: 'v1', metadata: { unit: 'rps' } } });
    expect((await svcd.request('GET', `/v1.0/configuration/redisconfig?key=${prefix}none`)).status).to.equal(204);
  });

  it('lists both stores in /v1.0/metadata', async () => {
    const { components } = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { components: { name: string; type: string }[] };
    expect(components.map((c) => [c.name, c.type])).to.deep.include.members([
      ['redisconfig', 'configuration.redis'],
      ['pgconfig', 'configuration.postgresql'],
    ]);
  });

  it('gRPC GetConfiguration and GetConfigurationAlpha1', async () => {
    const got = await unary<{ items: Record<string, Item> }>('GetConfiguration', { storeName: 'redisconfig', keys: [`${prefix}color`] });
    expect(got.items).to.deep.equal({ [`${prefix}color`]: { value: 'blue', version: 'v1', metadata: {} } });
    const alpha = await unary<{ items: Record<string, Item> }>('GetConfigurationAlpha1', { storeName: 'pgconfig', keys: ['limit'] });
    expect(alpha.items.limit?.metadata).to.deep.equal({ unit: 'rps' });
  });

  it('HTTP subscribe: changes are POSTed to the app at /configuration/<store>/<key> until unsubscribed', async () => {
    const sub = await svcd.request('GET', `/v1.0/configuration/redisconfig/subscribe?key=${prefix}color`);
    const { id } = (await sub.json()) as { id: string };
    expect(id).to.be.a('string').and.not.equal('');
    await setRedis('color', 'green||v2');
    const path = `/configuration/redisconfig/${prefix}color`;
    await eventually('the update reached the app', () => Promise.resolve(app.deliveries.some((d) => d.path === path)));
    expect(app.deliveries.find((d) => d.path === path)!.body).to.deep.equal({ id, items: { [`${prefix}color`]: { value: 'green', version: 'v2', metadata: {} } } });
    const un = await svcd.request('GET', `/v1.0/configuration/redisconfig/${id}/unsubscribe`);
    expect([un.status, await un.json()]).to.deep.equal([200, { ok: true }]);
    const again = await svcd.request('GET', `/v1.0/configuration/redisconfig/${id}/unsubscribe`);
    expect(again.status).to.equal(500);
    expect(await again.json()).to.deep.include({ ok: false });
    const before = app.deliveries.length;
    await setRedis('color', 'red||v3');
    await new Promise((r) => setTimeout(r, 300));
    expect(app.deliveries.length, 'nothing after unsubscribe').to.equal(before);
  });

  it('gRPC SubscribeConfiguration: the id first, then changes; UnsubscribeConfiguration ends the stream with OK', async () => {
    const stream = (client.SubscribeConfiguration as (r: unknown) => grpc.ClientReadableStream<StreamMessage>)({ storeName: 'pgconfig', keys: ['limit'], metadata: { pgNotifyChannel: `${table}_changes` } });
    const messages: StreamMessage[] = [];
    const ended = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
    stream.on('data', (m: StreamMessage) => messages.push(m));
    stream.on('error', () => undefined);
    await eventually('the id', () => Promise.resolve(messages.length >= 1));
    const id = messages[0]!.id;
    expect(messages[0]!.items).to.deep.equal({});
    await withTestPostgres((pgc) => pgc.query(`UPDATE ${table} SET value = '20', version = 'v2' WHERE key = 'limit'`));
    await eventually('the change', () => Promise.resolve(messages.length >= 2));
    expect(messages[1]).to.deep.equal({ id, items: { limit: { value: '20', version: 'v2', metadata: { unit: 'rps' } } } });
    expect(await unary('UnsubscribeConfiguration', { storeName: 'pgconfig', id })).to.deep.equal({ ok: true, message: '' });
    expect((await ended).code).to.equal(grpc.status.OK);
    const unknown = await unary<{ ok: boolean; message: string }>('UnsubscribeConfigurationAlpha1', { storeName: 'pgconfig', id });
    expect(unknown.ok).to.equal(false);
    expect(unknown.message).to.include('subscription does not exist');
  });

  it("answers Dapr's errors: unknown store 400, a failed subscribe 400 for bad input", async () => {
    const unknown = await svcd.request('GET', '/v1.0/configuration/nope?key=a');
    expect([unknown.status, ((await unknown.json()) as { errorCode: string }).errorCode]).to.deep.equal([400, 'ERR_CONFIGURATION_STORE_NOT_FOUND']);
    const noChannel = await svcd.request('GET', '/v1.0/configuration/pgconfig/subscribe?key=limit');
    expect([noChannel.status, ((await noChannel.json()) as { errorCode: string }).errorCode]).to.deep.equal([400, 'ERR_MALFORMED_REQUEST']);
    const err = await unary('GetConfiguration', { storeName: 'nope' }).catch((e: grpc.ServiceError) => e);
    expect((err as grpc.ServiceError).code).to.equal(grpc.status.INVALID_ARGUMENT);
  });

  it('ends SubscribeConfiguration streams with OK when svcd stops (SIGTERM)', async () => {
    const stopping = await SvcdProcess.start({ resources: { 'redis.yaml': componentYaml('redisconfig', 'configuration.redis', { redisHost: TEST_REDIS_HOST }) } });
    const own = daprClient(stopping.ports.grpc);
    try {
      const stream = (own.SubscribeConfiguration as (r: unknown) => grpc.ClientReadableStream<StreamMessage>)({ storeName: 'redisconfig', keys: [`${prefix}color`] });
      const ended = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
      const first = new Promise((resolve) => stream.once('data', resolve));
      stream.on('error', () => undefined);
      await first;
      await stopping.stop();
      expect((await ended).code).to.equal(grpc.status.OK);
    } finally {
      own.close();
      await stopping.dispose();
    }
  });

  it('answers 500 ERR_CONFIGURATION_STORE_NOT_CONFIGURED without any configuration store, and HTTP subscribe needs an app', async () => {
    const bare = await SvcdProcess.start({ resources: { 'redis.yaml': componentYaml('redisconfig', 'configuration.redis', { redisHost: TEST_REDIS_HOST }) } });
    const none = await SvcdProcess.start({});
    try {
      const noApp = await bare.request('GET', '/v1.0/configuration/redisconfig/subscribe');
      expect([noApp.status, ((await noApp.json()) as { errorCode: string }).errorCode]).to.deep.equal([500, 'ERR_APP_CHANNEL_NIL']);
      const res = await none.request('GET', '/v1.0/configuration/any');
      expect([res.status, ((await res.json()) as { errorCode: string }).errorCode]).to.deep.equal([500, 'ERR_CONFIGURATION_STORE_NOT_CONFIGURED']);
    } finally {
      await Promise.all([bare.dispose(), none.dispose()]);
    }
  });
});
