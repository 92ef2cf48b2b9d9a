import { expect } from 'chai';
import { RedisStateStore, redisOptionsFromMetadata } from '../../src/state/redis.js';
import { describeStateStoreConformance } from '../conformance/state-store-conformance.js';
import { freePort, TEST_REDIS_HOST } from '../support/index.js';

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
});
