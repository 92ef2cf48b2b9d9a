/**
 * The real @dapr/dapr DaprClient, unchanged, with the configuration API over gRPC (the SDK has it over gRPC only):
 * `configuration.get` and `configuration.subscribeWithKeys` against `configuration.redis`, and `stop()` (which
 * cancels the stream and unsubscribes).
 */
import { CommunicationProtocolEnum, DaprClient, LogLevel } from '@dapr/dapr';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SvcdProcess, TEST_REDIS_HOST, componentYaml, eventually, withTestRedis } from '@svc/runtime/test-support';

describe('Dapr JS SDK configuration (DaprClient get/subscribe over gRPC) against svcd', function () {
  this.timeout(60_000);
  const key = `sdk-cfg-${randomUUID()}`;
  let svcd: SvcdProcess;
  let client: DaprClient;

  before(async () => {
    await withTestRedis((r) => r.set(key, 'on||v1'));
    svcd = await SvcdProcess.start({ resources: { 'config.yaml': componentYaml('config', 'configuration.redis', { redisHost: TEST_REDIS_HOST }) } });
    client = new DaprClient({ daprHost: '127.0.0.1', daprPort: String(svcd.ports.grpc), communicationProtocol: CommunicationProtocolEnum.GRPC, logger: { level: LogLevel.Error } });
  });
  after(async () => {
    await client?.stop();
    await svcd?.dispose();
    await withTestRedis((r) => r.del(key));
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
});
