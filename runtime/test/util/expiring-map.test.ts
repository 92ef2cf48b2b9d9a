import { expect } from 'chai';
import { ExpiringMap } from '../../src/util/expiring-map.js';

describe('ExpiringMap', () => {
  it('forgets an entry at its expiry, and keeps nothing already expired', () => {
    let now = 0;
    const map = new ExpiringMap<string, number>(10, () => now);
    map.set('a', 1, 100);
    map.set('late', 2, 0);
    expect(map.get('a')).to.equal(1);
    expect(map.get('late')).to.equal(undefined);
    now = 100;
    expect(map.get('a')).to.equal(undefined);
    expect(map.size).to.equal(0);
  });

  it('holds at most maxEntries: expired entries go first, then the oldest', () => {
    let now = 0;
    const map = new ExpiringMap<string, number>(3, () => now);
    map.set('old', 1, 1_000);
    map.set('short', 2, 10);
    map.set('mid', 3, 1_000);
    now = 20;
    map.set('new', 4, 1_000);
    expect([map.get('old'), map.get('short'), map.get('mid'), map.get('new')]).to.deep.equal([1, undefined, 3, 4]);
    map.set('newer', 5, 1_000);
    expect([map.get('old'), map.get('mid'), map.get('new'), map.get('newer')]).to.deep.equal([undefined, 3, 4, 5]);
    expect(map.size).to.equal(3);
  });
});
