/**
 * Commands sent while others await replies leave in one write; a lone command leaves at once. Counted on the
 * real socket to a real Redis: `_write` is one write of one chunk, `_writev` one write of all the corked ones.
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { RedisWriteCoalescer } from '../../src/state/redis-coalescer.js';
import { connectRedis } from '../../src/stores/redis-connection.js';
import { redisOptionsFromMetadata } from '../../src/stores/redis-connection.js';
import { deleteRedisKeysWithPrefix, TEST_REDIS_HOST } from '../support/index.js';

describe('Redis write coalescer', () => {
  const prefix = `coalesce-${randomBytes(4).toString('hex')}`;
  let redis: Redis;
  let writes = 0;

  before(async () => {
    const [host, port] = TEST_REDIS_HOST.split(':');
    redis = new Redis({ host, port: Number(port), lazyConnect: true });
    await redis.connect();
    const socket = redis.stream as Socket & { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
    for (const method of ['_write', '_writev'] as const) {
      const original = socket[method].bind(socket);
      socket[method] = (...args: unknown[]) => {
        writes++;
        original(...args);
      };
    }
  });
  after(async () => {
    await deleteRedisKeysWithPrefix(prefix);
    redis.disconnect();
  });

  it('writes a lone command at once', async () => {
    const coalescer = new RedisWriteCoalescer(redis);
    const before = writes;
    const reply = coalescer.send(() => redis.set(`${prefix}||lone`, 'v'));
    expect(writes - before, 'written before the call returned').to.equal(1);
    expect(await reply).to.equal('OK');
  });

  it('sends 50 commands issued together in two writes, each getting its own reply', async () => {
    const coalescer = new RedisWriteCoalescer(redis);
    await Promise.all(Array.from({ length: 50 }, (_, i) => redis.set(`${prefix}||${i}`, `v${i}`)));
    const before = writes;
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => coalescer.send(() => redis.get(`${prefix}||${i}`))));
    expect(replies).to.deep.equal(Array.from({ length: 50 }, (_, i) => `v${i}`));
    // The first at once (none in flight), the other 49 together when the socket is uncorked.
    expect(writes - before).to.equal(2);
  });

  it('passes a failed command on and keeps coalescing after it', async () => {
    const coalescer = new RedisWriteCoalescer(redis);
    const outcomes = await Promise.allSettled([coalescer.send(() => redis.get(`${prefix}||0`)), coalescer.send(() => redis.incr(`${prefix}||1`)), coalescer.send(() => redis.get(`${prefix}||2`))]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).to.include('not an integer');
    expect(await coalescer.send(() => redis.get(`${prefix}||3`))).to.equal('v3');
  });

  it('loses nothing when the connection drops under corked commands, and coalesces again on the new one', async () => {
    // svcd's own connection settings; only this connection is killed (other test files share the server).
    const store = await connectRedis(redisOptionsFromMetadata((name) => (name === 'redisHost' ? TEST_REDIS_HOST : undefined)));
    const [host, port] = TEST_REDIS_HOST.split(':');
    const admin = new Redis({ host, port: Number(port) });
    try {
      const coalescer = new RedisWriteCoalescer(store);
      const id = Number(await store.client('ID'));
      const get = (i: number) => coalescer.send(() => store.get(`${prefix}||${i}`));
      const expected = Array.from({ length: 50 }, (_, i) => `v${i}`);
      // Killed before the client has noticed: the 50 go to the dead socket, 49 of them corked.
      await admin.client('KILL', 'ID', String(id));
      expect(await Promise.all(expected.map((_, i) => get(i)))).to.deep.equal(expected);
      expect(Number(await store.client('ID')), 'a new connection').to.not.equal(id);
      let newWrites = 0;
      const socket = store.stream as Socket & { _writev: (...a: unknown[]) => void };
      const writev = socket._writev.bind(socket);
      socket._writev = (...args: unknown[]) => {
        newWrites++;
        writev(...args);
      };
      expect(await Promise.all(expected.map((_, i) => get(i)))).to.deep.equal(expected);
      expect(newWrites, 'the 49 commands after the first in one write').to.equal(1);
    } finally {
      store.disconnect();
      admin.disconnect();
    }
  });
});
