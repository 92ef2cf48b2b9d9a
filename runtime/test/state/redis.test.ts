import { expect } from 'chai';
import { RedisStateStore } from '../../src/state/redis.js';
import { redisOptionsFromMetadata } from '../../src/stores/redis-connection.js';
import { describeStateStoreConformance } from '../conformance/state-store-conformance.js';
import { randomBytes } from 'node:crypto';
import type { TransactionOperation } from '../../src/components/contracts/state-store.js';
import { deleteRedisKeysWithPrefix, freePort, TEST_REDIS_HOST } from '../support/index.js';

const metadata = (md: Record<string, string>) => (name: string) => md[name];

// Keys carry a random prefix per test, so the shared Redis needs no flushing.
describeStateStoreConformance('state.redis', () => RedisStateStore.connect(redisOptionsFromMetadata(metadata({ redisHost: TEST_REDIS_HOST }))));

describe('state.redis specifics', () => {
  it('parses redisHost, redisDB and redisPassword', () => {
    expect(redisOptionsFromMetadata(metadata({ redisHost: 'cache:6380', redisDB: '2', redisPassword: 'pw' }))).to.include({ host: 'cache', port: 6380, db: 2, password: 'pw' });
    expect(redisOptionsFromMetadata(metadata({ redisHost: '[::1]:7000' }))).to.include({ host: '::1', port: 7000 });
    expect(redisOptionsFromMetadata(metadata({ redisHost: 'cache' }))).to.include({ host: 'cache', port: 6379 });
    expect(() => redisOptionsFromMetadata(metadata({ redisHost: 'a:b:c' }))).to.throw(/redisHost/);
  });

  it('fails to connect to a wrong address with the address in the message', async () => {
    const port = await freePort(); // free, so nothing listens there
    let failure: unknown;
    await RedisStateStore.connect(redisOptionsFromMetadata(metadata({ redisHost: `127.0.0.1:${port}` }))).catch((err: unknown) => (failure = err));
    expect(String(failure)).to.include(`cannot connect to Redis at 127.0.0.1:${port}`);
  });

  it('applies 100,000 writes in one transaction (one script call, no argument spread)', async function () {
    this.timeout(60_000);
    const prefix = `bulk-${randomBytes(4).toString('hex')}`;
    const store = await RedisStateStore.connect(redisOptionsFromMetadata(metadata({ redisHost: TEST_REDIS_HOST })));
    try {
      const ops: TransactionOperation[] = Array.from({ length: 100_000 }, (_, i) => ({ operation: 'upsert', request: { key: `${prefix}||${i}`, value: Buffer.from(String(i)) } }));
      await store.transact(ops);
      const sample = await store.bulkGet([0, 54_321, 99_999].map((i) => ({ key: `${prefix}||${i}` })));
      expect(sample.map((item) => [item.data?.toString(), item.etag])).to.deep.equal([
        ['0', '1'],
        ['54321', '1'],
        ['99999', '1'],
      ]);
    } finally {
      await store.close();
      await deleteRedisKeysWithPrefix(prefix);
    }
  });
});
