import { expect } from 'chai';
import { desiredOwners } from '../../src/actors/placement/assignment.js';
import { OWNERSHIP_PARTITIONS } from '../../src/state/placement-store.js';

const counts = (owners: readonly string[]) => owners.reduce((m, h) => m.set(h, (m.get(h) ?? 0) + 1), new Map<string, number>());

describe('placement: desired partition owners', () => {
  it('gives every partition to one live host, balanced within one partition', () => {
    for (const n of [1, 2, 3, 5, 7]) {
      const hosts = Array.from({ length: n }, (_, i) => `host-${i}`);
      const owners = desiredOwners(hosts, OWNERSHIP_PARTITIONS);
      expect(owners).to.have.length(OWNERSHIP_PARTITIONS);
      const c = [...counts(owners).values()];
      expect(c.reduce((a, b) => a + b, 0)).to.equal(OWNERSHIP_PARTITIONS);
      expect(Math.max(...c) - Math.min(...c)).to.be.at.most(1);
    }
  });

  it('is the same whatever order the hosts are listed in', () => {
    expect(desiredOwners(['c', 'a', 'b'], 64)).to.deep.equal(desiredOwners(['a', 'b', 'c'], 64));
  });

  it('moves only a fair share of partitions when a host joins or leaves', () => {
    const before = desiredOwners(['a', 'b', 'c'], 64);
    const joined = desiredOwners(['a', 'b', 'c', 'd'], 64);
    const movedOnJoin = before.filter((h, p) => joined[p] !== h).length;
    // The newcomer needs 16; the load bound may shuffle a few more, never most of them.
    expect(movedOnJoin).to.be.at.least(16).and.at.most(28);
    const left = desiredOwners(['a', 'b'], 64);
    const keptByStayers = before.filter((h, p) => h !== 'c' && left[p] === h).length;
    expect(keptByStayers).to.be.at.least(before.filter((h) => h !== 'c').length - 6);
  });

  it('has no owners without hosts', () => {
    expect(desiredOwners([], 64)).to.deep.equal([]);
  });
});
