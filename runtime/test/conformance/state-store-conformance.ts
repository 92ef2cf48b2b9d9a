/**
 * One conformance suite for every `StateStore`: built-in or pluggable, the same cases run through the public
 * interface only. Keys carry a random prefix per test, so stores on shared servers (Redis, PostgreSQL) are safe.
 */
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { canListKeys, isTransactional, StateEtagError, type KeyListingStore, type StateFeature, type StateStore, type TransactionalStateStore } from '../../src/components/contracts/state-store.js';

export interface StateStoreConformanceOptions {
  /** Features the store must report. Transaction cases run when this includes TRANSACTIONAL, expiry cases with TTL. @default ETAG, TRANSACTIONAL, ACTOR, TTL */
  readonly features?: readonly StateFeature[];
  /** Whether the store lists keys (`KeyListingStore`); the listing cases run when it does. @default true */
  readonly listsKeys?: boolean;
}

const BUILT_IN_FEATURES: readonly StateFeature[] = ['ETAG', 'TRANSACTIONAL', 'ACTOR', 'TTL'];

async function etagError(promise: Promise<unknown>): Promise<StateEtagError> {
  try {
    await promise;
  } catch (err) {
    expect(err, `expected a StateEtagError, got ${String(err)}`).to.be.instanceOf(StateEtagError);
    return err as StateEtagError;
  }
  expect.fail('expected the operation to fail with a StateEtagError');
}

const text = (s: string) => Buffer.from(s, 'utf8');

/**
 * Registers a mocha `describe` that runs the conformance cases against a store made by `makeStore` (called once,
 * in `before`). `cleanup` runs after the store is closed (drop a table, remove a file…).
 */
export function describeStateStoreConformance(
  label: string,
  makeStore: () => Promise<StateStore>,
  cleanup?: () => Promise<void>,
  options: StateStoreConformanceOptions = {},
): void {
  const features = options.features ?? BUILT_IN_FEATURES;

  describe(`state store conformance: ${label}`, function () {
    this.timeout(30_000);
    let store: StateStore;
    let prefix = '';
    /** Every key a case used, removed after it: a shared Redis or PostgreSQL would keep them from run to run. */
    const used = new Set<string>();
    const k = (name: string) => {
      const key = `${prefix}${name}`;
      used.add(key);
      return key;
    };
    const value = async (key: string) => (await store.get({ key }))?.data.toString('utf8');
    const etagOf = async (key: string) => {
      const got = await store.get({ key });
      expect(got, `key ${key} should exist`).to.not.equal(undefined);
      expect(got!.etag, `key ${key} should have an etag`).to.be.a('string').and.not.equal('');
      return got!.etag!;
    };

    before(async () => {
      store = await makeStore();
    });
    after(async () => {
      await store?.close();
      await cleanup?.();
    });
    beforeEach(() => {
      prefix = `conformance-${randomUUID()}||`;
    });
    afterEach(async () => {
      for (const key of used) await store.delete({ key }).catch(() => undefined);
      used.clear();
    });

    it('reports its features', () => {
      expect(store.features()).to.include.members([...features]);
      expect(isTransactional(store)).to.equal(features.includes('TRANSACTIONAL'));
      expect(canListKeys(store)).to.equal(options.listsKeys ?? true);
    });

    describe('get, set, delete', () => {
      it('returns undefined for a missing key', async () => {
        expect(await store.get({ key: k('missing') })).to.equal(undefined);
      });

      it('keeps every byte of the value', async () => {
        const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
        await store.set({ key: k('binary'), value: bytes });
        const got = await store.get({ key: k('binary') });
        expect(got?.data.equals(bytes)).to.equal(true);
        const json = text('{ "b" : 1,\n "a": [1.0, 2e3, "é\\u00e9 😀"] }');
        await store.set({ key: k('json'), value: json });
        expect((await store.get({ key: k('json') }))?.data.equals(json)).to.equal(true);
      });

      it('stores a 1 MiB value', async () => {
        const big = randomBytes(1024 * 1024);
        await store.set({ key: k('big'), value: big });
        expect((await store.get({ key: k('big') }))?.data.equals(big)).to.equal(true);
      });

      it('round-trips odd keys', async () => {
        const keys = ['ключ 🔑', 'a b/c?d#e%20f', 'with||separator', 'x'.repeat(1000), '\'"; DROP TABLE state; --'];
        for (const key of keys) await store.set({ key: k(key), value: text(JSON.stringify(key)) });
        for (const key of keys) expect(await value(k(key)), key).to.equal(JSON.stringify(key));
      });

      it('overwrites without an etag (last-write) and changes the etag on every write', async () => {
        await store.set({ key: k('a'), value: text('1') });
        const first = await etagOf(k('a'));
        await store.set({ key: k('a'), value: text('2') });
        const second = await etagOf(k('a'));
        await store.set({ key: k('a'), value: text('3'), options: { concurrency: 'last-write' } });
        expect(second).to.not.equal(first);
        expect(await etagOf(k('a'))).to.not.equal(second);
        expect(await value(k('a'))).to.equal('3');
      });

      it('deletes a key, and deleting a missing key succeeds', async () => {
        await store.set({ key: k('a'), value: text('1') });
        await store.delete({ key: k('a') });
        expect(await store.get({ key: k('a') })).to.equal(undefined);
        await store.delete({ key: k('never-existed') });
        await store.set({ key: k('a'), value: text('again') });
        expect(await value(k('a'))).to.equal('again');
      });
    });

    if (features.includes('TTL')) {
      describe('expiry (ttlInSeconds)', () => {
        const ttl = (seconds: number) => ({ ttlInSeconds: String(seconds) });
        const pastExpiry = () => new Promise((r) => setTimeout(r, 1300));

        it('reads a value until it expires, then as absent (get and bulk get), with its expiry time when the store says it', async () => {
          const before = Date.now();
          await store.set({ key: k('short'), value: text('1'), metadata: ttl(1) });
          const got = await store.get({ key: k('short') });
          expect(got?.data.toString()).to.equal('1');
          if (got?.metadata?.ttlExpireTime !== undefined) expect(Date.parse(got.metadata.ttlExpireTime) - before).to.be.within(900, 2000);
          await pastExpiry();
          expect(await store.get({ key: k('short') })).to.equal(undefined);
          const [item] = await store.bulkGet([{ key: k('short') }]);
          expect(item!.data).to.equal(undefined);
        });

        it('after expiry, first-write succeeds and a delete with the old etag fails', async () => {
          await store.set({ key: k('gone'), value: text('1'), metadata: ttl(1) });
          const old = await etagOf(k('gone'));
          await pastExpiry();
          await etagError(store.delete({ key: k('gone'), etag: old }));
          await store.set({ key: k('gone'), value: text('2'), options: { concurrency: 'first-write' } });
          expect(await value(k('gone'))).to.equal('2');
        });

        it('a later save without a TTL (or with -1) keeps the value for good', async () => {
          await store.set({ key: k('kept'), value: text('1'), metadata: ttl(1) });
          await store.set({ key: k('kept'), value: text('2') });
          await store.set({ key: k('never'), value: text('3'), metadata: { ttlInSeconds: '-1' } });
          await pastExpiry();
          expect(await value(k('kept'))).to.equal('2');
          expect(await value(k('never'))).to.equal('3');
        });

        if (features.includes('TRANSACTIONAL')) {
          it('expires values written by a transaction with ttlInSeconds', async () => {
            const tx = store as TransactionalStateStore;
            await tx.transact([
              { operation: 'upsert', request: { key: k('tx-short'), value: text('1'), metadata: ttl(1) } },
              { operation: 'upsert', request: { key: k('tx-long'), value: text('2') } },
            ]);
            await pastExpiry();
            expect(await value(k('tx-short'))).to.equal(undefined);
            expect(await value(k('tx-long'))).to.equal('2');
          });
        }
      });
    }

    describe('etags and concurrency', () => {
      it('writes with the current etag and rejects a stale one without changing the value', async () => {
        await store.set({ key: k('a'), value: text('1') });
        const stale = await etagOf(k('a'));
        await store.set({ key: k('a'), value: text('2'), etag: stale });
        const err = await etagError(store.set({ key: k('a'), value: text('3'), etag: stale }));
        expect(err.kind).to.equal('mismatch');
        expect(await value(k('a'))).to.equal('2');
      });

      it('rejects an etag for a missing key as a mismatch', async () => {
        await store.set({ key: k('a'), value: text('1') });
        const etag = await etagOf(k('a'));
        const err = await etagError(store.set({ key: k('b'), value: text('1'), etag }));
        expect(err.kind).to.equal('mismatch');
        expect(await store.get({ key: k('b') })).to.equal(undefined);
      });

      it('rejects a malformed etag as invalid without changing the value', async () => {
        await store.set({ key: k('a'), value: text('1') });
        for (const etag of ['not-an-etag', '-1', '1.5', ' 1']) {
          const err = await etagError(store.set({ key: k('a'), value: text('2'), etag }));
          expect(err.kind, etag).to.equal('invalid');
        }
        expect(await value(k('a'))).to.equal('1');
      });

      it('treats an empty etag as no etag', async () => {
        await store.set({ key: k('a'), value: text('1') });
        await store.set({ key: k('a'), value: text('2'), etag: '' });
        expect(await value(k('a'))).to.equal('2');
      });

      it('first-write without an etag only creates', async () => {
        await store.set({ key: k('a'), value: text('1'), options: { concurrency: 'first-write' } });
        const err = await etagError(store.set({ key: k('a'), value: text('2'), options: { concurrency: 'first-write' } }));
        expect(err.kind).to.equal('mismatch');
        expect(await value(k('a'))).to.equal('1');
        const etag = await etagOf(k('a'));
        await store.set({ key: k('a'), value: text('3'), etag, options: { concurrency: 'first-write' } });
        expect(await value(k('a'))).to.equal('3');
      });

      it('deletes with the current etag; a wrong or malformed etag keeps the value', async () => {
        await store.set({ key: k('a'), value: text('1') });
        const stale = await etagOf(k('a'));
        await store.set({ key: k('a'), value: text('2') });
        expect((await etagError(store.delete({ key: k('a'), etag: stale }))).kind).to.equal('mismatch');
        expect((await etagError(store.delete({ key: k('a'), etag: 'garbage' }))).kind).to.equal('invalid');
        expect(await value(k('a'))).to.equal('2');
        await store.delete({ key: k('a'), etag: await etagOf(k('a')) });
        expect(await store.get({ key: k('a') })).to.equal(undefined);
        expect((await etagError(store.delete({ key: k('a'), etag: stale }))).kind).to.equal('mismatch');
      });

      it('lets exactly one of many concurrent first-writes win', async () => {
        const attempts = Array.from({ length: 10 }, (_, i) => store.set({ key: k('race'), value: text(String(i)), options: { concurrency: 'first-write' } }));
        const results = await Promise.allSettled(attempts);
        const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
        expect(won).to.have.length(1);
        for (const r of results) if (r.status === 'rejected') expect(r.reason).to.be.instanceOf(StateEtagError);
        expect(await value(k('race'))).to.equal(String(won[0]));
      });

      it('lets exactly one of many concurrent writes with the same etag win', async () => {
        await store.set({ key: k('race'), value: text('start') });
        const etag = await etagOf(k('race'));
        const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.set({ key: k('race'), value: text(String(i)), etag })));
        const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
        expect(won).to.have.length(1);
        expect(await value(k('race'))).to.equal(String(won[0]));
      });
    });

    describe('bulk operations', () => {
      it('bulk get answers in request order, with missing keys and etags', async () => {
        await store.bulkSet([
          { key: k('a'), value: text('"A"') },
          { key: k('b'), value: text('"B"') },
        ]);
        const items = await store.bulkGet([{ key: k('b') }, { key: k('missing') }, { key: k('a') }, { key: k('b') }]);
        expect(items.map((i) => i.key)).to.deep.equal([k('b'), k('missing'), k('a'), k('b')]);
        expect(items.map((i) => i.data?.toString())).to.deep.equal(['"B"', undefined, '"A"', '"B"']);
        expect(items[0]!.etag).to.equal(await etagOf(k('b')));
        expect(items[1]!.etag).to.equal(undefined);
        expect(await store.bulkGet([])).to.deep.equal([]);
      });

      it('bulk set is all or nothing', async () => {
        await store.set({ key: k('a'), value: text('1') });
        const stale = await etagOf(k('a'));
        await store.set({ key: k('a'), value: text('2') });
        const err = await etagError(store.bulkSet([{ key: k('new'), value: text('x') }, { key: k('a'), value: text('3'), etag: stale }]));
        expect(err.kind).to.equal('mismatch');
        expect((await etagError(store.bulkSet([{ key: k('new'), value: text('x') }, { key: k('a'), value: text('3'), etag: 'bad' }]))).kind).to.equal('invalid');
        expect(await store.get({ key: k('new') })).to.equal(undefined);
        expect(await value(k('a'))).to.equal('2');
        await store.bulkSet([{ key: k('new'), value: text('x') }, { key: k('a'), value: text('3'), etag: await etagOf(k('a')) }]);
        expect([await value(k('new')), await value(k('a'))]).to.deep.equal(['x', '3']);
      });

      it('bulk delete is all or nothing', async () => {
        await store.bulkSet([
          { key: k('a'), value: text('1') },
          { key: k('b'), value: text('1') },
        ]);
        const etagA = await etagOf(k('a'));
        const staleB = await etagOf(k('b'));
        await store.set({ key: k('b'), value: text('2') });
        expect((await etagError(store.bulkDelete([{ key: k('a'), etag: etagA }, { key: k('b'), etag: staleB }]))).kind).to.equal('mismatch');
        expect([await value(k('a')), await value(k('b'))]).to.deep.equal(['1', '2']);
        await store.bulkDelete([{ key: k('a'), etag: etagA }, { key: k('b') }]);
        expect([await store.get({ key: k('a') }), await store.get({ key: k('b') })]).to.deep.equal([undefined, undefined]);
      });
    });

    if (!features.includes('TRANSACTIONAL')) return;

    describe('transactions', () => {
      const tx = (): TransactionalStateStore => {
        if (!isTransactional(store)) expect.fail('store reports TRANSACTIONAL but has no transact()');
        return store;
      };

      it('applies upserts and deletes together', async () => {
        await store.set({ key: k('gone'), value: text('1') });
        await tx().transact(
          [
            { operation: 'upsert', request: { key: k('a'), value: text('"a"') } },
            { operation: 'delete', request: { key: k('gone') } },
            { operation: 'upsert', request: { key: k('b'), value: text('"b"') } },
          ],
          { note: 'metadata is accepted' },
        );
        expect([await value(k('a')), await value(k('b')), await store.get({ key: k('gone') })]).to.deep.equal(['"a"', '"b"', undefined]);
      });

      it('rolls back every operation when a later one fails its etag', async () => {
        await store.set({ key: k('keep'), value: text('1') });
        await store.set({ key: k('guarded'), value: text('1') });
        const stale = await etagOf(k('guarded'));
        await store.set({ key: k('guarded'), value: text('2') });
        const err = await etagError(
          tx().transact([
            { operation: 'upsert', request: { key: k('new'), value: text('x') } },
            { operation: 'delete', request: { key: k('keep') } },
            { operation: 'upsert', request: { key: k('guarded'), value: text('3'), etag: stale } },
          ]),
        );
        expect(err.kind).to.equal('mismatch');
        expect([await store.get({ key: k('new') }), await value(k('keep')), await value(k('guarded'))]).to.deep.equal([undefined, '1', '2']);
      });

      it('rejects a malformed etag anywhere without applying anything', async () => {
        const err = await etagError(
          tx().transact([
            { operation: 'upsert', request: { key: k('new'), value: text('x') } },
            { operation: 'delete', request: { key: k('other'), etag: 'nope' } },
          ]),
        );
        expect(err.kind).to.equal('invalid');
        expect(await store.get({ key: k('new') })).to.equal(undefined);
      });

      it('applies operations on the same key in order', async () => {
        await tx().transact([
          { operation: 'upsert', request: { key: k('a'), value: text('1') } },
          { operation: 'upsert', request: { key: k('a'), value: text('2') } },
          { operation: 'delete', request: { key: k('b') } },
          { operation: 'upsert', request: { key: k('b'), value: text('b'), options: { concurrency: 'first-write' } } },
        ]);
        expect([await value(k('a')), await value(k('b'))]).to.deep.equal(['2', 'b']);
        await tx().transact([
          { operation: 'upsert', request: { key: k('a'), value: text('3') } },
          { operation: 'delete', request: { key: k('a') } },
        ]);
        expect(await store.get({ key: k('a') })).to.equal(undefined);
        const err = await etagError(
          tx().transact([
            { operation: 'upsert', request: { key: k('c'), value: text('1'), options: { concurrency: 'first-write' } } },
            { operation: 'upsert', request: { key: k('c'), value: text('2'), options: { concurrency: 'first-write' } } },
          ]),
        );
        expect(err.kind).to.equal('mismatch');
        expect(await store.get({ key: k('c') })).to.equal(undefined);
      });

      it('accepts an empty transaction', async () => {
        await tx().transact([]);
      });
    });

    if (options.listsKeys ?? true) {
      describe('listKeys', () => {
        const lister = () => store as StateStore & KeyListingStore;
        const list = async (p: string, page: { after?: string; limit: number }) =>
          (await lister().listKeys(p, page)).map((e) => `${e.key.slice(p.length)}=${e.value.toString('utf8')}`);

        it('lists the keys under a prefix in byte order, a page at a time, strictly after a key', async () => {
          const p = k('listed||');
          lister().declareListedPrefix(p);
          const names = ['b', 'a', '_x', 'B', '0', '-', 'a:0001', 'a-b', 'zz'];
          await store.bulkSet(names.map((n) => ({ key: k(`listed||${n}`), value: text(n.toUpperCase()) })));
          // Neighbours of the prefix that are not under it.
          await store.set({ key: k('listed|'), value: text('no') });
          await store.set({ key: k('listed}'), value: text('no') });
          await store.set({ key: k('listee'), value: text('no') });
          const inByteOrder = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
          expect(await list(p, { limit: 100 })).to.deep.equal(inByteOrder.map((n) => `${n}=${n.toUpperCase()}`));
          const seen: string[] = [];
          let after: string | undefined;
          for (;;) {
            const page = await lister().listKeys(p, { limit: 4, ...(after !== undefined ? { after } : {}) });
            if (page.length === 0) break;
            expect(page.length).to.be.at.most(4);
            seen.push(...page.map((e) => e.key.slice(p.length)));
            after = page[page.length - 1]!.key;
          }
          expect(seen).to.deep.equal(inByteOrder);
        });

        it('follows every kind of write and delete, and nothing of a write that failed', async () => {
          const p = k('listed||');
          lister().declareListedPrefix(p);
          await store.set({ key: k('listed||one'), value: text('1') });
          await store.bulkSet([
            { key: k('listed||two'), value: text('2') },
            { key: k('listed||three'), value: text('3') },
          ]);
          await store.set({ key: k('listed||one'), value: text('1b') });
          await store.delete({ key: k('listed||two') });
          expect(await list(p, { limit: 10 })).to.deep.equal(['one=1b', 'three=3']);
          if (isTransactional(store)) {
            await store.transact([
              { operation: 'delete', request: { key: k('listed||one') } },
              { operation: 'upsert', request: { key: k('listed||four'), value: text('4') } },
            ]);
            await etagError(
              store.transact([
                { operation: 'upsert', request: { key: k('listed||five'), value: text('5') } },
                { operation: 'upsert', request: { key: k('listed||three'), value: text('x'), etag: '999' } },
              ]),
            );
          }
          await store.bulkDelete([{ key: k('listed||missing') }]);
          expect(await list(p, { limit: 10 })).to.deep.equal(isTransactional(store) ? ['four=4', 'three=3'] : ['one=1b', 'three=3']);
        });

        it('lists nothing under a prefix without keys', async () => {
          const p = k('empty||');
          lister().declareListedPrefix(p);
          expect(await lister().listKeys(p, { limit: 10 })).to.deep.equal([]);
        });
      });
    }
  });
}
