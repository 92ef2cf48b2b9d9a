/**
 * The real @dapr/dapr DaprClient, unchanged, with the configuration API over gRPC (the SDK has it over gRPC only:
 * its HTTP client throws HTTPNotSupportedError before any request; svcd's HTTP configuration API is tested with raw
 * requests in runtime/test/configuration): `configuration.get` and `configuration.subscribeWithKeys` against
 * `configuration.redis`, and `stop()` (which cancels the stream and unsubscribes); `configuration.get` and
 * `configuration.subscribeWithMetadata` (pgNotifyChannel) against `configuration.postgresql`, the subscription
 * going on after svcd's LISTEN backend is terminated.
 */
import { CommunicationProtocolEnum, DaprClient, LogLevel } from '@dapr/dapr';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SvcdProcess, TEST_POSTGRES_URL, TEST_REDIS_HOST, componentYaml, configurationTableSql, eventually, withTestPostgres, withTestRedis } from '@svc/runtime/test-support';

describe('Dapr JS SDK configuration (DaprClient get/subscribe over gRPC) against svcd', function () {
  this.timeout(60_000);
  const key = `sdk-cfg-${randomUUID()}`;
  const table = `sdkcfg_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  /** svcd's PostgreSQL connections carry it, so the test terminates its LISTEN backend and no other. */
  const applicationName = `sdk-cfg-${randomUUID()}`;
  let svcd: SvcdProcess;
  let client: DaprClient;

  before(async () => {
    await withTestRedis((r) => r.set(key, 'on||v1'));
    await withTestPostgres((pgc) => pgc.query(`${configurationTableSql(table, `${table}_changes`)}; INSERT INTO ${table} VALUES ('limit', '10', 'v1', '{"unit": "rps"}')`));
    const pgUrl = new URL(TEST_POSTGRES_URL);
    pgUrl.searchParams.set('application_name', applicationName);
    svcd = await SvcdProcess.start({
      resources: {
        'config.yaml': componentYaml('config', 'configuration.redis', { redisHost: TEST_REDIS_HOST }),
        'pgconfig.yaml': componentYaml('pgconfig', 'configuration.postgresql', { connectionString: pgUrl.href, table }),
      },
    });
    client = new DaprClient({ daprHost: '127.0.0.1', daprPort: String(svcd.ports.grpc), communicationProtocol: CommunicationProtocolEnum.GRPC, logger: { level: LogLevel.Error } });
  });
  after(async () => {
    await client?.stop();
    await svcd?.dispose();
    await withTestRedis((r) => r.del(key));
    await withTestPostgres((pgc) => pgc.query(`DROP TABLE IF EXISTS ${table}; DROP FUNCTION IF EXISTS ${table}_notify()`));
  });

  it('gets items by key', async () => {
    const got = await client.configuration.get('config', [key]);
    expect(got.items[key]).to.deep.include({ value: 'on', version: 'v1' });
  });

  it('subscribes: changes reach the callback until stop()', async () => {
    const seen: Record<string, { value: string; version: string }>[] = [];
    const subscription = await client.configuration.subscribeWithKeys('config', [key], (res) => {
      seen.push(res.items);
      return Promise.resolve();
    });
    // The SDK answers before its stream is open: write until a change arrives.
    let n = 0;
    await eventually('a change reached the callback', async () => {
      await withTestRedis((r) => r.set(key, `off||v${++n + 1}`));
      await new Promise((r) => setTimeout(r, 100));
      return seen.length > 0;
    });
    expect(seen.at(-1)?.[key]).to.deep.include({ value: 'off' });
    // Typed as returning nothing, but the gRPC client's stop() is async: it unsubscribes before it resolves.
    await Promise.resolve(subscription.stop());
    await new Promise((r) => setTimeout(r, 200));
    const count = seen.length;
    await withTestRedis((r) => r.set(key, 'after||v99'));
    await new Promise((r) => setTimeout(r, 300));
    expect(seen.length, 'nothing after stop()').to.equal(count);
  });

  it('gets and subscribes with pgNotifyChannel on configuration.postgresql; the subscription outlives a terminated LISTEN backend', async () => {
    const got = await client.configuration.get('pgconfig', ['limit']);
    expect(got.items.limit).to.deep.include({ value: '10', version: 'v1', metadata: { unit: 'rps' } });
    const seen: string[] = [];
    const subscription = await client.configuration.subscribeWithMetadata('pgconfig', ['limit'], { pgNotifyChannel: `${table}_changes` }, (res) => {
      if (res.items.limit) seen.push(res.items.limit.value);
      return Promise.resolve();
    });
    const writeUntilSeen = async (what: string, value: string) => {
      let n = 0;
      await eventually(what, async () => {
        await withTestPostgres((pgc) => pgc.query(`UPDATE ${table} SET value = $1, version = $2 WHERE key = 'limit'`, [value, `v${++n + 1}`]));
        await new Promise((r) => setTimeout(r, 100));
        return seen.includes(value);
      });
    };
    try {
      // The SDK answers before its stream is open: written until a change arrives.
      await writeUntilSeen('a change before the termination', '20');
      const terminated = await withTestPostgres((pgc) => pgc.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [applicationName]));
      expect(terminated.rowCount, "svcd's backends (its LISTEN among them)").to.be.greaterThan(0);
      await writeUntilSeen('a change after the termination', '30');
      // svcd's stdout and the gRPC stream are separate pipes: the log line may arrive after the change it preceded.
      await eventually('svcd logged the reconnect', () => Promise.resolve(svcd.output.includes('configuration LISTEN connection re-established')), 5_000);
    } finally {
      await Promise.resolve(subscription.stop());
    }
  });
});
