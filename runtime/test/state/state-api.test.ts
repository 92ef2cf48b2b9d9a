/** StateApi rules that the built-in stores cannot trigger, with small fake stores (unit level). */
import { expect } from 'chai';
import type { ComponentSpec } from '../../src/components/spec.js';
import { isRuntimeError, type RuntimeError } from '../../src/errors/runtime-error.js';
import { InMemoryStateStore } from '../../src/state/in-memory.js';
import { StateApi } from '../../src/state/state-api.js';
import { ComponentStatusError, type StateStore, type TransactionalStateStore } from '../../src/components/contracts/state-store.js';

function spec(name: string, metadata: Record<string, string> = {}): ComponentSpec {
  return { name, namespace: undefined, annotations: {}, type: 'state.fake', category: 'state', version: 'v1', ignoreErrors: false, initTimeoutMs: undefined, metadata, secretRefs: {}, secretStore: undefined, scopes: [], source: 'test' };
}

function apiWith(stores: Record<string, { store: StateStore; metadata?: Record<string, string> }>): StateApi {
  return new StateApi({
    appId: 'app',
    namespace: undefined,
    stores: {
      stateStore: (name) => (stores[name] ? { spec: spec(name, stores[name].metadata), store: stores[name].store } : undefined),
      list: () => Object.keys(stores),
    },
  });
}

async function rejection(promise: Promise<unknown>): Promise<RuntimeError> {
  try {
    await promise;
  } catch (err) {
    expect(isRuntimeError(err), String(err)).to.equal(true);
    return err as RuntimeError;
  }
  expect.fail('expected a RuntimeError');
}

describe('StateApi', () => {
  it('answers a component status error with its own HTTP status and the operation code', async () => {
    const failing = new InMemoryStateStore();
    failing.get = () => Promise.reject(new ComponentStatusError('disk on fire', 507, 'tag'));
    const err = await rejection(apiWith({ s: { store: failing } }).get('s', 'k'));
    expect([err.code, err.httpStatus]).to.deep.equal(['ERR_STATE_GET', 507]);
    expect(err.message).to.equal('fail to get k from state store s: disk on fire');
  });

  it('refuses transactions on a store without TRANSACTIONAL', async () => {
    const plain = new InMemoryStateStore();
    plain.features = () => ['ETAG'];
    const err = await rejection(apiWith({ s: { store: plain } }).transact('s', []));
    expect([err.code, err.httpStatus]).to.deep.equal(['ERR_STATE_STORE_NOT_SUPPORTED', 500]);
  });

  it('refuses more operations than multiMaxSize', async () => {
    const small = Object.assign(new InMemoryStateStore(), { multiMaxSize: () => 1 }) as TransactionalStateStore;
    const op = (key: string) => ({ operation: 'upsert', request: { key, value: Buffer.from('1') } });
    const err = await rejection(apiWith({ s: { store: small } }).transact('s', [op('a'), op('b')]));
    expect([err.code, err.httpStatus]).to.deep.equal(['ERR_STATE_STORE_TOO_MANY_TRANSACTIONS', 400]);
    expect(await small.get({ key: 'app||a' })).to.equal(undefined);
  });

  it('unprefixes keys a store returns in its own order', async () => {
    const reordering = new InMemoryStateStore();
    await reordering.bulkSet([{ key: 'app||a', value: Buffer.from('1') }, { key: 'app||b', value: Buffer.from('2') }]);
    const bulkGet = reordering.bulkGet.bind(reordering);
    reordering.bulkGet = async (reqs) => (await bulkGet(reqs)).reverse();
    const items = await apiWith({ s: { store: reordering } }).bulkGet('s', ['a', 'b']);
    expect(items.map((i) => [i.key, i.data?.toString()])).to.deep.equal([['b', '2'], ['a', '1']]);
  });

  it('distinguishes no stores at all (500) from an unknown store (400)', async () => {
    expect((await rejection(apiWith({}).get('s', 'k'))).code).to.equal('ERR_STATE_STORE_NOT_CONFIGURED');
    expect((await rejection(apiWith({ other: { store: new InMemoryStateStore() } }).get('s', 'k'))).code).to.equal('ERR_STATE_STORE_NOT_FOUND');
  });
});
