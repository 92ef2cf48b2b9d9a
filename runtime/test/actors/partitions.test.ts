import { expect } from 'chai';
import { actorIdHash, reminderPartitionOf } from '../../src/actors/keys.js';
import { ownershipPartitionOf } from '../../src/actors/placement/partitions.js';

describe('actors: partitions of an actor id', () => {
  // Stored layouts depend on these values: the first 32 bits of sha1(actorId), big-endian.
  it('are the stored hash of the id, asked once or many times', () => {
    for (let i = 0; i < 3; i++) {
      expect(actorIdHash('order-1')).to.equal(3929519147);
      expect(reminderPartitionOf('wf-42', 1024)).to.equal(397);
      expect(ownershipPartitionOf('wf-42')).to.equal(13);
    }
  });

  it('stay the same for ids asked about again after many others', () => {
    const before = reminderPartitionOf('order-1', 64);
    for (let i = 0; i < 20_000; i++) actorIdHash(`other-${i}`);
    expect(reminderPartitionOf('order-1', 64)).to.equal(before);
    expect(before).to.equal(43);
  });
});
