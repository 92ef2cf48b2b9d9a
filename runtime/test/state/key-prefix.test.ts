import { expect } from 'chai';
import { assertValidStateKey, StateKeyMapper, stateKeyPrefix } from '../../src/state/key-prefix.js';
import { expectMalformed } from '../support/expect-runtime-error.js';

const ctx = { appId: 'myapp', storeName: 'mystore', namespace: undefined };

describe('state key prefixing', () => {
  it('follows the keyPrefix strategies, matched without case', () => {
    expect(stateKeyPrefix(undefined, ctx)).to.equal('myapp');
    expect(stateKeyPrefix('AppID', ctx)).to.equal('myapp');
    expect(stateKeyPrefix('none', ctx)).to.equal(undefined);
    expect(stateKeyPrefix('name', ctx)).to.equal('mystore');
    expect(stateKeyPrefix('namespace', ctx)).to.equal('myapp');
    expect(stateKeyPrefix('namespace', { ...ctx, namespace: 'prod' })).to.equal('prod.myapp');
    expect(stateKeyPrefix('Shared-Prefix', ctx)).to.equal('shared-prefix');
  });

  it('uses no prefix for appid and namespace when the app id is empty', () => {
    expect(stateKeyPrefix('appid', { ...ctx, appId: '' })).to.equal(undefined);
    expect(stateKeyPrefix('namespace', { ...ctx, appId: '', namespace: 'prod' })).to.equal(undefined);
  });

  it('rejects a custom prefix containing the separator', () => {
    expectMalformed(() => stateKeyPrefix('a||b', ctx), /keyPrefix 'a\|\|b' can't contain '\|\|'/);
  });

  it('maps keys to store keys and back', () => {
    const m = new StateKeyMapper('myapp');
    expect(m.toStoreKey('order-1')).to.equal('myapp||order-1');
    expect(m.fromStoreKey('myapp||order-1')).to.equal('order-1');
    expect(m.fromStoreKey('other||order-1')).to.equal('other||order-1');
    const none = new StateKeyMapper(undefined);
    expect(none.toStoreKey('k')).to.equal('k');
    expect(none.fromStoreKey('k')).to.equal('k');
  });

  it('rejects empty keys, keys with the separator and keys with NUL', () => {
    expectMalformed(() => assertValidStateKey(''), /"key" is a required field/);
    expectMalformed(() => assertValidStateKey('a||b'), /can't contain/);
    expectMalformed(() => new StateKeyMapper('p').toStoreKey('x\u0000y'), /NUL/);
    assertValidStateKey('ключ 🔑 a|b /?#');
  });
});
