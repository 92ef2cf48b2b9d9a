/**
 * The real @dapr/dapr DaprClient, unchanged, with the distributed lock over HTTP and over gRPC: `lock.lock` and
 * `lock.unlock` against `lock.redis`, a second owner refused, a non-owner's unlock refused, statuses as the SDK's
 * `LockStatus`.
 */
import { CommunicationProtocolEnum, DaprClient, LogLevel } from '@dapr/dapr';
import { LockStatus } from '@dapr/dapr/types/lock/UnlockResponse.js';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SvcdProcess, TEST_REDIS_HOST, componentYaml, deleteRedisKeysWithPrefix } from '@svc/runtime/test-support';

describe('Dapr JS SDK distributed lock (DaprClient lock.lock/lock.unlock) against svcd', function () {
  this.timeout(60_000);
  const appId = `sdk-locks-${randomUUID()}`;
  let svcd: SvcdProcess;

  before(async () => {
    svcd = await SvcdProcess.start({ appId, resources: { 'locks.yaml': componentYaml('locks', 'lock.redis', { redisHost: TEST_REDIS_HOST }) } });
  });
  after(async () => {
    await svcd?.dispose();
    await deleteRedisKeysWithPrefix(`lock||${appId}||`);
  });

  for (const protocol of ['http', 'grpc'] as const) {
    it(`locks and unlocks over ${protocol}`, async () => {
      const client = new DaprClient({
        daprHost: '127.0.0.1',
        daprPort: String(protocol === 'grpc' ? svcd.ports.grpc : svcd.ports.http),
        communicationProtocol: protocol === 'grpc' ? CommunicationProtocolEnum.GRPC : CommunicationProtocolEnum.HTTP,
        logger: { level: LogLevel.Error },
      });
      try {
        const resource = randomUUID();
        expect(await client.lock.lock('locks', resource, 'owner-1', 30)).to.deep.equal({ success: true });
        expect(await client.lock.lock('locks', resource, 'owner-2', 30)).to.deep.equal({ success: false });
        expect(await client.lock.unlock('locks', resource, 'owner-2')).to.deep.equal({ status: LockStatus.LockBelongsToOthers });
        expect(await client.lock.unlock('locks', resource, 'owner-1')).to.deep.equal({ status: LockStatus.Success });
        expect(await client.lock.unlock('locks', resource, 'owner-1')).to.deep.equal({ status: LockStatus.LockDoesNotExist });
        expect(await client.lock.lock('locks', resource, 'owner-2', 30)).to.deep.equal({ success: true });
      } finally {
        await client.stop();
      }
    });
  }
});
